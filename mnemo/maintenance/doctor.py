"""`mnemo doctor`: find the partial states a killed or concurrent run can leave, and repair them.

What it checks, per namespace: every LanceDB table opens (a kill while LanceDB created a table
leaves a folder it lists but cannot open) and holds one row per id (two writers at once); the
Kùzu graph opens and has every table. With `fix`, an unreadable vector table is removed (the
next ingest rebuilds it from the pipeline's state) and duplicate ids keep one row. A graph Kùzu
cannot open is reported, not removed: it may hold what no source can rebuild.
"""

from dataclasses import dataclass
from pathlib import Path

from mnemo.errors import GraphIncomplete, StoreLocked
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vector_repair import duplicate_ids
from mnemo.stores.vectors import VectorStore
from ontology import Ontology


@dataclass(frozen=True)
class Finding:
    """One thing found wrong, and what was done about it (None: nothing yet)."""

    problem: str
    fixed: str | None = None


def examine(data_dir: Path, namespace: str, ontology: Ontology, fix: bool = False) -> list[Finding]:
    """What is wrong with the namespace's stores (and, with `fix`, what was repaired)."""
    files = NamespaceFiles(data_dir, namespace)
    return [
        *_vector_findings(VectorStore(files.vectors_path), fix),
        *_graph_findings(GraphStore(files.graph_path, ontology)),
    ]


def _vector_findings(store: VectorStore, fix: bool) -> list[Finding]:
    found = []
    for name in store.table_names():
        table = store.table(name)
        problem = store.problems.get(name)
        doubled = duplicate_ids(table) if table is not None else []
        if problem is None and not doubled:
            continue
        what = str(problem) if problem else f"vector table {name!r}: {len(doubled)} ids held by more than one row"
        found.append(Finding(what, "; ".join(store.repair(name)) if fix else None))
    return found


def _graph_findings(graph: GraphStore) -> list[Finding]:
    try:
        graph.counts()
    except GraphIncomplete as exc:
        return [Finding(f"graph: {exc}")]
    except StoreLocked:
        return []  # a writer holds it: in use, not damaged
    except RuntimeError as exc:
        return [Finding(f"graph {graph.path} cannot be opened ({exc}); restore a backup (`mnemo restore`), "
                        "or move it aside and ingest again to rebuild it from the sources")]
    return []
