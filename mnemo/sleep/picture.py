"""A picture of the salience distribution, for the asset's metadata (matplotlib, no display)."""

from pathlib import Path

import numpy as np

from mnemo.documents import content_hash
from mnemo.sleep.store import SleepFiles
from mnemo.stores.files import NamespaceFiles

KINDS = (("entity", "tab:blue"), ("chunk", "tab:orange"))
BINS = 20


def salience_histogram(files: NamespaceFiles, fade_below: float | None = None) -> Path:
    """Write `sleep/salience.png`: scores of entities and chunks, faded ones below the line (drawn
    again only when what it shows changed: the count of items in a bar, or the line)."""
    sleep = SleepFiles(files.root, files.session)
    path = sleep.root / "salience.png"
    rows = list(sleep.read_overlay("salience").nodes.get("Salience", {}).values())
    counts = {kind: _counts([r["score"] for r in rows if r["item_kind"] == kind]) for kind, _ in KINDS}
    drawn = content_hash(repr(sorted(counts.items())), str(fade_below))
    if path.exists() and sleep.read_state("picture").get("drawn") == drawn:
        return path
    _draw(counts, fade_below, path)
    sleep.write_state("picture", {"drawn": drawn})
    return path


def _counts(scores: list[float]) -> list[int]:
    """Items per bar: `BINS` equal bars over [0, 1], the last one closed (as numpy and matplotlib bin)."""
    return np.histogram(np.asarray(scores, dtype=np.float64), bins=BINS, range=(0.0, 1.0))[0].tolist()


def _draw(counts: dict[str, list[int]], fade_below: float | None, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 3.2), dpi=100)
    edges = np.linspace(0.0, 1.0, BINS + 1)
    for kind, color in KINDS:
        axis.stairs(counts[kind], edges, fill=True, alpha=0.6, color=color, label=kind)
    if fade_below is not None:
        axis.axvline(fade_below, color="grey", linestyle="--", label="fades below")
    axis.set_xlabel("salience")
    axis.set_ylabel("items")
    axis.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
