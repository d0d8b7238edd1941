"""Forgetting: record a tombstone, then remove the forgotten text from every place mnemo keeps it.

The tombstone is written first, so recall stops returning what was forgotten even before the
stores are cleaned, and a later ingest never brings it back. Then, holding the namespace lock
alone (no writer runs meanwhile): the files between pipeline steps and the caches drop it
(`forget_state`), and so do sleep mode's files; the vector tables lose the rows and every file
and version that held them (`forget_vectors`); the graph is rebuilt from those files into a new
file that replaces the old one (`compaction`), so its pages keep no bytes of it. Last, the
forgotten entity's own note loses mnemo's write-back block, journaled (`forget_notes`).
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mnemo.config import MnemoConfig, NamespaceConfig
from mnemo.ingest.pipeline import entity_rows
from mnemo.maintenance.compaction import compact_stores
from mnemo.maintenance.forget_notes import remove_blocks
from mnemo.maintenance.forget_state import purge_files, purge_sleep
from mnemo.maintenance.forget_vectors import purge_rows, purge_vectors
from mnemo.stores.embedders import Embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.locks import namespace_lock
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vectors import VectorStore, id_filter

T = TypeVar("T")
GRAPH_WAIT = 10.0
FORGET_WAIT = 60.0  # for a running writer to finish; then StoreLocked (HTTP 503)


@dataclass
class ForgetReport(Tombstones):
    """What a forget removed (or, for a dry run, would remove), the items it showed, and where it
    cleaned: the write-back run that took mnemo's block out of the entity's note, and timings."""

    items: list[dict[str, Any]] = field(default_factory=list)
    dry_run: bool = False
    writeback_run: str | None = None
    notes: list[str] = field(default_factory=list)
    notes_skipped: list[dict[str, str]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**self.stored(), "items": self.items, "dry_run": self.dry_run, "writeback_run": self.writeback_run,
                "notes": self.notes, "notes_skipped": self.notes_skipped, "seconds": self.seconds}


def entity_pages(graph: GraphStore, entity: str) -> list[str] | None:
    """The notes whose subject is the entity (their content is what only it contributed); None
    when the graph holds no such entity."""
    if not graph.path.exists():
        return None
    found = graph.query("MATCH (e:Entity) WHERE e.id = $id RETURN e.id AS id", {"id": entity}, wait_seconds=GRAPH_WAIT)
    if not found:
        return None
    rows = graph.query("MATCH (n:Note)-[:PAGE_OF]->(e:Entity) WHERE e.id = $id AND n.present RETURN n.id AS id",
                       {"id": entity}, wait_seconds=GRAPH_WAIT)
    return [r["id"] for r in rows]


def apply_forget(config: MnemoConfig, files: NamespaceFiles, vectors: VectorStore, graph: GraphStore,
                 embedder: Embedder, report: ForgetReport) -> None:
    """Persist the tombstones, then remove what they name from every store and file at once."""
    with namespace_lock(files.root, exclusive=True, wait_seconds=FORGET_WAIT):
        pages = [d for d in files.read_documents() if d.id in report.docs]
        namespace = config.namespace(files.namespace)
        changed = _purge_stores(files, vectors, graph, embedder, namespace, report)
        if changed and graph.path.exists():  # else the graph, made of those files, holds nothing of it
            _timed(report, "graph", lambda: compact_stores(files, graph, growth=None, run_id="forget"))
    done = remove_blocks(config, files.namespace, pages)
    if done is not None:
        report.writeback_run = done.run if done.written else None
        report.notes = list(done.written)
        report.notes_skipped = [{"path": s.path, "reason": s.reason} for s in done.skipped]


def _timed(report: ForgetReport, step: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    done = action()
    report.seconds[step] = round(time.perf_counter() - start, 3)
    return done


def _purge_stores(files: NamespaceFiles, vectors: VectorStore, graph: GraphStore, embedder: Embedder,
                  namespace: NamespaceConfig, delta: ForgetReport) -> bool:
    """Tombstones first, then the files, sleep's files and the vector tables; whether anything the
    graph is made of changed."""
    stored = Tombstones.load(files.root)
    stored.merge(delta)
    stored.save(files.root)
    before = {c.id: c.doc_id for c in files.read_chunks()}
    purged = _timed(delta, "state", lambda: purge_files(files, stored, graph.ontology, namespace))
    left, changed = purged or (set(), set())
    chunks = sorted(delta.chunks | {c for c, d in before.items() if d in delta.docs})
    entities = delta.entities | left
    overlays = _timed(delta, "sleep", lambda: purge_sleep(files.root, frozenset(entities | delta.docs | set(chunks))))
    _timed(delta, "vectors", lambda: purge_vectors(vectors, chunks, sorted(delta.docs), sorted(entities)))
    _resync_entities(
        files, vectors, embedder, changed | {e for e, _ in delta.properties} | {e for e, _ in delta.relations}
    )
    return purged is not None or overlays > 0


def _resync_entities(files: NamespaceFiles, vectors: VectorStore, embedder: Embedder, changed: set[str]) -> None:
    """Entities that lost a property or relation: their vector rows (and every file that held them)
    are made again without it."""
    rows = [r for r in entity_rows(files.read_facts()) if r["id"] in changed]
    if rows and vectors.table("entities") is not None:
        purge_rows(vectors, "entities", id_filter([r["id"] for r in rows]))
        vectors.sync("entities", entity_rows(files.read_facts()), embedder)
