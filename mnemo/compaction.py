"""Graph compaction: the Kùzu database rebuilt from the memory files and swapped in.

Kùzu writes an update out of place and does not give the old pages back, so every run that
writes the graph leaves some behind. The file grows with the graph's history, not with what
it holds, and so does the cost of a write: measured at 10k notes, a one-changed-note ingest
and a sleep run grew the file by ~15 MB a cycle (160 to 527 MB in 22 cycles), and a store
that had seen a few hundred such cycles held 1.3 GB, where a rebuild of the same graph takes
134 MB; the checkpoint after one changed `Note` row took 0.14 s there against 0.017 s in the
rebuild, one `MENTIONS` edge 0.47 s against 0.12 s.

The graph is a projection of files (the extraction facts, the merge log, the sleep overlays:
`canonical_facts`), so it can be made again at any time. `compact_graph` does that into a
new file beside the old one, holding the namespace lock exclusively (no writer runs meanwhile;
readers keep the file they opened), then renames it over the old one. Sleep mode calls it
every night; it rebuilds when the file has grown to `sleep.compact_growth` times its size after
the last rebuild (the first time, it notes that size), and `mnemo compact` rebuilds at once.
"""

import json
import os
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from mnemo import faults
from mnemo.locks import WRITER_WAIT_SECONDS, namespace_lock
from mnemo.stores.files import NamespaceFiles, write_text_atomic
from mnemo.stores.graph import GraphStore

STATE = "graph_state.json"
SUFFIX = ".compact.tmp"  # ends in .tmp: an interrupted rebuild is no part of a backup


@dataclass(frozen=True)
class Compaction:
    """What a call did: sizes in bytes (0 when there is no graph), the size the growth is measured
    from, whether the graph was rebuilt, and how long the rebuild took."""

    size: int
    base: int
    compacted: bool
    size_after: int
    seconds: float = 0.0

    @property
    def growth(self) -> float:
        return round(self.size / self.base, 2) if self.base else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "growth": self.growth}


def _state_path(files: NamespaceFiles) -> Path:
    return files.root / STATE


def read_state(files: NamespaceFiles) -> dict[str, Any]:
    """What the last rebuild (or the first look) noted; {} when nothing was noted or the file is unreadable."""
    try:
        state = json.loads(_state_path(files).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) and isinstance(state.get("base"), int) else {}


def _note(files: NamespaceFiles, base: int, **extra: Any) -> None:
    write_text_atomic(_state_path(files), json.dumps({"base": base, **extra}, sort_keys=True))


def _remove(path: Path) -> None:
    for part in (path, path.with_name(path.name + ".wal")):
        part.unlink(missing_ok=True)


def compact_graph(
    files: NamespaceFiles, graph: GraphStore, growth: float | None = None, run_id: str = "",
    wait_seconds: float = WRITER_WAIT_SECONDS,
) -> Compaction:
    """Rebuild the graph from the memory files when it has grown to `growth` times its size after
    the last rebuild, or always when `growth` is None. Without a noted size, the graph's present
    size is noted and nothing is rebuilt (unless `growth` is None). Waits up to `wait_seconds`
    for running writers (StoreLocked after that)."""
    path = graph.path
    if not path.exists():
        return Compaction(0, 0, False, 0)
    with namespace_lock(files.root, exclusive=True, wait_seconds=wait_seconds):
        size = path.stat().st_size
        base = read_state(files).get("base", 0)
        if growth is not None and not base:
            _note(files, size, noted=_now())
            return Compaction(size, size, False, size)
        if growth is not None and size < growth * base:
            return Compaction(size, base, False, size)
        start = time.perf_counter()
        fresh = path.with_name(path.name + SUFFIX)
        _remove(fresh)  # left by a rebuild that was cut off
        from mnemo.sleep.merges import canonical_facts  # the sleep package imports the stores, not the other way

        GraphStore(fresh, graph.ontology, graph.buffer_pool_mb).apply(canonical_facts(files), run_id=run_id)
        faults.point("compaction:swap")
        # The old file was closed by its last writer (each opens it for one unit of work), so a
        # log left beside it belongs to a writer that died mid-write: it must not be replayed into
        # the new file. It goes first; a cut here leaves the old file as of its last checkpoint.
        path.with_name(path.name + ".wal").unlink(missing_ok=True)
        os.replace(fresh, path)
        after = path.stat().st_size
        seconds = round(time.perf_counter() - start, 2)
        _note(files, after, compacted=_now(), before=size, seconds=seconds)
        return Compaction(size, base or size, True, after, seconds)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
