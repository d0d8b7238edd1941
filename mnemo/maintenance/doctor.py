"""`mnemo doctor`: find the partial states a killed or concurrent run can leave, and repair them.

What it checks, per namespace: every LanceDB table opens (a kill while LanceDB created a table
leaves a folder it lists but cannot open) and holds one row per id (two writers at once); the
Kùzu graph opens and has every table; no forget was cut off (its journal left: what it was
forgetting may still be in the stores); no graph rebuild was cut off (its file left beside the
graph). With `fix`, an unreadable vector table is removed (the next ingest rebuilds it from the
pipeline's state), duplicate ids keep one row, the cut-off forget is finished and a cut-off
rebuild's file removed. A graph the engine cannot open is reported, not removed: it may hold what
no source can rebuild. A graph built by another engine than `graph.engine` is reported too, and
`rebuild_graph` (`mnemo doctor --rebuild-graph`) makes it again with the configured engine.
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mnemo.errors import GraphEngineError, GraphIncomplete, StoreLocked
from mnemo.maintenance.compaction import SIDE_FILES, SUFFIX, Compaction, compact_stores
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.forget_journal import FILE as FORGET_JOURNAL
from mnemo.stores.forget_journal import pending_forget
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_engine import DEFAULT_ENGINE, built_with
from mnemo.stores.locks import namespace_lock
from mnemo.stores.vectors import VectorStore
from ontology import Ontology

LOCK_WAIT = 5.0


@dataclass(frozen=True)
class Finding:
    """One thing found wrong, and what was done about it (None: nothing yet)."""

    problem: str
    fixed: str | None = None


def examine(data_dir: Path, namespace: str, ontology: Ontology, fix: bool = False,
            finish_forget: Callable[[], object] | None = None, engine: str = DEFAULT_ENGINE) -> list[Finding]:
    """What is wrong with the namespace's stores (and, with `fix`, what was repaired), its graph
    opened with `engine`. `finish_forget` finishes a forget that was cut off (without it, one is
    only reported)."""
    files = NamespaceFiles(data_dir, namespace)
    return [
        *_cut_off_findings(files, fix, finish_forget),
        *_vector_findings(VectorStore(files.vectors_path), fix),
        *_graph_findings(GraphStore(files.graph_path, ontology, engine=engine)),
    ]


@dataclass(frozen=True)
class GraphRebuild:
    """What `rebuild_graph` did: the engine that had built the graph (None: none there, or not
    recognised) and the one that built it again, with the compaction's sizes and time."""

    before: str | None
    engine: str
    compaction: Compaction


def rebuild_graph(data_dir: Path, namespace: str, ontology: Ontology, engine: str = DEFAULT_ENGINE) -> GraphRebuild:
    """Make the namespace's graph again from its files with `engine` (how a namespace switches
    engine): built beside the old graph, which it replaces only once complete (a cut leaves the old
    one, and a file `examine` reports). Waits for running writers; nothing is done without a graph."""
    files = NamespaceFiles(data_dir, namespace)
    before = built_with(files.graph_path)
    done = compact_stores(files, GraphStore(files.graph_path, ontology, engine=engine), None, growth=None)
    return GraphRebuild(before, engine, done)


def _cut_off_findings(files: NamespaceFiles, fix: bool, finish: Callable[[], object] | None) -> list[Finding]:
    """A forget or a graph rebuild that was cut off, looked for while no writer runs (a running one's
    journal or new file is not left over)."""
    if not files.root.is_dir():
        return []
    try:
        with namespace_lock(files.root, exclusive=True, wait_seconds=LOCK_WAIT):
            return [*_forget_findings(files, fix, finish), *_rebuild_findings(files.graph_path, fix)]
    except StoreLocked:
        return []


def _forget_findings(files: NamespaceFiles, fix: bool, finish: Callable[[], object] | None) -> list[Finding]:
    journal = pending_forget(files.root)
    if journal is None:
        return []
    what = ", ".join(f"{len(v)} {k}" for k, v in journal.forgotten.stored().items() if v)
    problem = (f"a forget started {journal.started} was cut off ({files.root / FORGET_JOURNAL}; {what}; steps done: "
               f"{', '.join(journal.done) or 'none'}): what it forgets may still be in the stores; "
               "run `mnemo doctor --fix` or the forget again to finish it")
    if not (fix and finish):
        return [Finding(problem)]
    finish()
    return [Finding(problem, "finished the forget: every step done, its journal removed")]


def _rebuild_findings(graph: Path, fix: bool) -> list[Finding]:
    """A graph rebuild (compaction, forget) that was cut off leaves its new file beside the graph."""
    fresh = graph.with_name(graph.name + SUFFIX)
    left = [p for p in (fresh, *(fresh.with_name(fresh.name + side) for side in SIDE_FILES)) if p.exists()]
    if not left:
        return []
    problem = f"a graph rebuild was cut off: {', '.join(p.name for p in left)} left beside {graph.name}"
    if not fix:
        return [Finding(problem)]
    for path in left:
        path.unlink(missing_ok=True)
    return [Finding(problem, "removed (the graph is the one before that rebuild)")]


def _vector_findings(store: VectorStore, fix: bool) -> list[Finding]:
    found = []
    for name in store.table_names():
        doubled = store.duplicate_ids(name)
        problem = store.problems.get(name)
        if problem is None and not doubled:
            continue
        what = str(problem) if problem else f"vector table {name!r}: {len(doubled)} ids held by more than one row"
        found.append(Finding(what, "; ".join(store.repair(name)) if fix else None))
    return found


def _graph_findings(graph: GraphStore) -> list[Finding]:
    try:
        graph.counts()
    except (GraphIncomplete, GraphEngineError) as exc:
        return [Finding(f"graph: {exc}")]
    except StoreLocked:
        return []  # a writer holds it: in use, not damaged
    except RuntimeError as exc:
        return [Finding(f"graph {graph.path} cannot be opened ({exc}); restore a backup (`mnemo restore`), "
                        "or move it aside and ingest again to rebuild it from the sources")]
    return []
