"""A picture of the salience distribution, for the asset's metadata (matplotlib, no display)."""

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from mnemo.documents import content_hash  # noqa: E402
from mnemo.sleep.store import SleepFiles  # noqa: E402
from mnemo.stores.files import NamespaceFiles  # noqa: E402


def salience_histogram(files: NamespaceFiles, fade_below: float | None = None) -> Path:
    """Write `sleep/salience.png`: scores of entities and chunks, faded ones below the line (drawn
    again only when the salience overlay or the line changed)."""
    sleep = SleepFiles(files.root)
    path = sleep.root / "salience.png"
    overlay = sleep.read_overlay("salience")
    drawn = content_hash(overlay.digest(), str(fade_below))
    if path.exists() and sleep.read_state("picture").get("drawn") == drawn:
        return path
    _draw(list(overlay.nodes.get("Salience", {}).values()), fade_below, path)
    sleep.write_state("picture", {"drawn": drawn})
    return path


def _draw(rows: list[dict[str, Any]], fade_below: float | None, path: Path) -> None:
    figure, axis = plt.subplots(figsize=(6, 3.2), dpi=100)
    for kind, color in (("entity", "tab:blue"), ("chunk", "tab:orange")):
        axis.hist([r["score"] for r in rows if r["item_kind"] == kind], bins=20, range=(0, 1), alpha=0.6, color=color, label=kind)
    if fade_below is not None:
        axis.axvline(fade_below, color="grey", linestyle="--", label="fades below")
    axis.set_xlabel("salience")
    axis.set_ylabel("items")
    axis.legend()
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
