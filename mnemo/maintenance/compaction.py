"""Store compaction: what many small writes leave behind in the graph and the vector tables, undone.

Kùzu writes an update out of place and does not give the old pages back, so every run that
writes the graph leaves some behind. The file grows with the graph's history, not with what
it holds, and so does the cost of a write: measured at 10k notes (`benchmarks/aging.py`), 30
cycles of one changed note ingested and consolidated took the file from 148 to 590 MB and the
ingest's entity_graph step from 1.02 to 1.54 s; a store that had seen a few hundred such cycles
held 1.3 GB where a rebuild takes 134 MB, and the checkpoint after one changed `Note` row took
0.14 s there against 0.017 s in the rebuild.

The graph is a projection of files (the extraction facts, the merge log, the sleep overlays:
`canonical_facts`), so it can be made again at any time: it is rebuilt into a new file beside
the old one, which it then replaces by a rename. That happens once the file has grown to
`sleep.compact_growth` times its size after the last rebuild (the first look notes that size).

LanceDB adds a fragment and a version per write: the same 30 cycles took the chunks table from
3 to 48 fragments and the eager hybrid search's p50 from 13.9 to 18.1 ms; the few-hundred-cycle
store's table had 116 fragments and 378 versions, and its p50 was 26.7 ms against 15.5 ms once
compacted (`optimize`: fragments merged, new rows folded into the indexes, old versions
removed). A vector table is compacted once `FRAGMENT_SLACK` data files came on top of those it
had after its last compaction: each write adds a fragment, and a fragment is a file in the
table's `data` folder (the Lance format), so counting them there needs no LanceDB import (0.8 s
in a launched run) on the nights nothing is due. A table whose folder is not laid out so is
asked through LanceDB.

Both happen while the namespace lock is held exclusively: no writer runs meanwhile; readers
keep the graph file or table version they opened. Sleep mode calls `compact_stores` every
night; `mnemo compact` compacts everything at once.
"""

import json
import os
import time
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from mnemo.stores import faults
from mnemo.stores.files import NamespaceFiles, write_text_atomic
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_engine import open_lock_path
from mnemo.stores.locks import WRITER_WAIT_SECONDS, namespace_lock
from mnemo.stores.vectors import VectorStore

STATE = "compaction.json"
SUFFIX = ".compact.tmp"  # ends in .tmp: an interrupted rebuild is no part of a backup
FRAGMENT_SLACK = 32
KEEP_VERSIONS_FOR = timedelta(minutes=10)  # a reader that opened an older version finishes well within this


@dataclass(frozen=True)
class Compaction:
    """What a call did. Graph: sizes in bytes (0 when there is no graph), the size its growth is
    measured from, whether it was rebuilt and how long that took. Vectors: for each table that was
    compacted, its fragments before and after."""

    size: int
    base: int
    rebuilt: bool
    size_after: int
    seconds: float = 0.0
    tables: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def growth(self) -> float:
        return round(self.size / self.base, 2) if self.base else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "growth": self.growth}


def read_state(files: NamespaceFiles) -> dict[str, Any]:
    """What the last compaction (or the first look) noted: {"graph": {"base": bytes, ...},
    "vector_files": {table: data files}}; {} when nothing was noted or the file is unreadable."""
    try:
        state = json.loads((files.root / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def compact_stores(
    files: NamespaceFiles, graph: GraphStore, vectors: VectorStore | None = None, growth: float | None = None,
    run_id: str = "", wait_seconds: float = WRITER_WAIT_SECONDS,
) -> Compaction:
    """Rebuild the graph from the memory files when it has grown to `growth` times its size after
    the last rebuild, and compact each vector table with `FRAGMENT_SLACK` more data files than after
    its last compaction; with `growth` None, both always, and each table keeps one row per id.
    Without a noted size or file count, the present one is noted and nothing is done (unless
    `growth` is None). Waits up to
    `wait_seconds` for running writers (StoreLocked after that)."""
    with namespace_lock(files.root, exclusive=True, wait_seconds=wait_seconds):
        state = read_state(files)
        noted = dict(state["graph"]) if isinstance(state.get("graph"), dict) else {}
        done, noted = _graph(files, graph, noted, growth, run_id)
        counted = dict(state["vector_files"]) if isinstance(state.get("vector_files"), dict) else {}
        tables = _vectors(vectors, counted, growth is None) if vectors is not None else {}
        fresh = {"graph": noted, "vector_files": counted}
        if fresh != state:
            write_text_atomic(files.root / STATE, json.dumps(fresh, sort_keys=True))
        return replace(done, tables=tables)


def _graph(files: NamespaceFiles, graph: GraphStore, noted: dict[str, Any], growth: float | None,
           run_id: str) -> tuple[Compaction, dict[str, Any]]:
    path = graph.path
    if not path.exists():
        return Compaction(0, 0, False, 0), noted
    size = path.stat().st_size
    noted_base = noted.get("base")
    base = noted_base if isinstance(noted_base, int) else 0
    if growth is not None and not base:
        return Compaction(size, size, False, size), {"base": size, "noted": _now()}
    if growth is not None and size < growth * base:
        return Compaction(size, base, False, size), noted
    start = time.perf_counter()
    fresh = path.with_name(path.name + SUFFIX)
    _remove(fresh)  # left by a rebuild whose process was killed
    from mnemo.sleep.merges import canonical_facts  # the sleep package imports the stores, not the other way

    try:
        GraphStore(fresh, graph.ontology, graph.buffer_pool_mb, graph.engine).apply(
            canonical_facts(files, shared=True), run_id=run_id
        )
        faults.point("compaction:swap")
    except BaseException:
        _remove(fresh)  # e.g. a full disk: the old graph stays, and so does the space
        raise
    # The old file was closed by its last writer (each opens it for one unit of work), so a log
    # left beside it belongs to a writer that died mid-write: it must not be replayed into the new
    # file. It goes first; a cut here leaves the old file as of its last checkpoint.
    for side in SIDE_FILES:
        path.with_name(path.name + side).unlink(missing_ok=True)
    os.replace(fresh, path)
    _remove(fresh)  # the lock file mnemo held beside it (LadybugDB)
    after = path.stat().st_size
    seconds = round(time.perf_counter() - start, 2)
    return Compaction(size, base or size, True, after, seconds), {"base": after, "compacted": _now(), "before": size,
                                                                  "seconds": seconds}


def _vectors(store: VectorStore, noted: dict[str, Any], force: bool) -> dict[str, tuple[int, int]]:
    """Compact the tables that gained `FRAGMENT_SLACK` data files; `noted` (table -> files) is updated in
    place. Returns each compacted table's fragments before and after."""
    done = {}
    for name, counted in store.data_files().items():
        if force and store.repair(name) and store.open(name) is None:  # one row per id; an unreadable table removed
            noted.pop(name, None)
            continue
        files, base = _files(store, name, counted), noted.get(name)
        if files is None:  # LanceDB cannot open it: the next ingest rebuilds it, to be noted afresh
            noted.pop(name, None)
            continue
        if not force and not isinstance(base, int):
            noted[name] = files
        elif force or (isinstance(base, int) and files > base + FRAGMENT_SLACK):
            compacted = store.compact(name, KEEP_VERSIONS_FOR)
            if compacted is None:  # LanceDB cannot open it: the next ingest rebuilds it
                continue
            done[name] = compacted
            noted[name] = _files(store, name, store.data_files().get(name))
    return done


def _files(store: VectorStore, name: str, counted: int | None) -> int | None:
    """The table's data files as counted, or its fragments through LanceDB when it has no `data` folder
    (None when LanceDB cannot open it either)."""
    if counted is not None:
        return counted
    return store.fragments(name)


SIDE_FILES = (".wal", ".shadow")  # Kùzu's log and its checkpoint's shadow pages, beside the database file


def _remove(path: Path) -> None:
    for part in (path, *(path.with_name(path.name + side) for side in SIDE_FILES), open_lock_path(path)):
        part.unlink(missing_ok=True)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
