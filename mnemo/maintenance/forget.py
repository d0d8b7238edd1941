"""Forgetting: record a tombstone, then remove the forgotten text from every place mnemo keeps it.

Holding the namespace lock alone (no writer runs meanwhile), a forget first writes its journal
(`forget_journal`: what it forgets, the notes and inbox files it cleans), then goes step by step:
the tombstones (recall stops returning what was forgotten, and a later ingest never brings it
back); the files between pipeline steps and the caches (`forget_state`), and sleep mode's files;
the vector tables lose the rows and every file and version that held them (`mnemo.stores.vector_purge`);
the graph is rebuilt from those files into a new file that replaces the old one (`compaction`),
so its pages keep no bytes of it; the forgotten entity's own note loses mnemo's write-back block,
journaled as a write-back (`forget_notes`); a forgotten memory's inbox file goes. Each step is
idempotent and is marked done in the journal, which goes last. A forget that finds the journal
of one that was cut off finishes that one first.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mnemo.config import MnemoConfig
from mnemo.ingest.pipeline import entity_rows
from mnemo.maintenance.compaction import compact_stores
from mnemo.maintenance.forget_notes import remove_blocks
from mnemo.maintenance.forget_state import entity_hashes, purge_files, purge_sleep
from mnemo.sources.memory_files import inbox_dir
from mnemo.stores import faults
from mnemo.stores.embedders import Embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.forget_journal import STEPS, ForgetJournal, PageRef, close_journal, pending_forget
from mnemo.stores.graph import GraphStore
from mnemo.stores.locks import namespace_lock
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_purge import purge_rows, purge_vectors
from mnemo.stores.vectors import VectorStore

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
    request: dict[str, Any] = field(default_factory=dict)  # what was asked: a re-run of it finds it done

    def to_dict(self) -> dict[str, Any]:
        return {**self.stored(), "items": self.items, "dry_run": self.dry_run, "writeback_run": self.writeback_run,
                "notes": self.notes, "notes_skipped": self.notes_skipped, "seconds": self.seconds}


@dataclass
class ForgetStores:
    """Everything a forget writes to: the namespace's files and stores, and the config naming its notes."""

    config: MnemoConfig
    files: NamespaceFiles
    vectors: VectorStore
    graph: GraphStore
    embedder: Embedder


def entity_pages(graph: GraphStore, entity: str) -> list[str] | None:
    """The notes whose subject is the entity (their content is what only it contributed); None
    when the graph holds no such entity."""
    if not graph.path.exists():
        return None
    with graph.reading(wait_seconds=GRAPH_WAIT) as reader:
        if not reader.has_entity(entity):
            return None
        return [r["id"] for r in reader.entity_pages(entity, present_only=True)]


def apply_forget(stores: ForgetStores, report: ForgetReport, inbox: list[str] | None = None) -> None:
    """Finish a forget that was cut off, if any; then journal this one and remove what it names
    from every store and file (and the inbox files of `inbox`, memory ids)."""
    with namespace_lock(stores.files.root, exclusive=True, wait_seconds=FORGET_WAIT):
        _finish_pending(stores)
        journal = _begin(stores.files, report, inbox or [])
        _run_steps(_Run(stores, journal, report))


def resume_forget(stores: ForgetStores) -> ForgetReport | None:
    """Finish the forget whose journal is left (a run cut off); its report, or None when none was left."""
    if pending_forget(stores.files.root) is None:
        return None
    with namespace_lock(stores.files.root, exclusive=True, wait_seconds=FORGET_WAIT):
        return _finish_pending(stores)


def _finish_pending(stores: ForgetStores) -> ForgetReport | None:
    journal = pending_forget(stores.files.root)
    if journal is None:
        return None
    forgotten = journal.forgotten
    report = ForgetReport(set(forgotten.chunks), set(forgotten.docs), set(forgotten.entities),
                          set(forgotten.properties), set(forgotten.relations), items=list(journal.items),
                          request=dict(journal.request))
    _run_steps(_Run(stores, journal, report))
    return report


def _begin(files: NamespaceFiles, report: ForgetReport, inbox: list[str]) -> ForgetJournal:
    """Write the journal of this forget, before any store is touched."""
    forgotten = Tombstones(set(report.chunks), set(report.docs), set(report.entities), set(report.properties),
                           set(report.relations))
    chunks = report.chunks | {c.id for c in files.read_chunks() if c.doc_id in report.docs}
    pages = [PageRef(d.source, d.path) for d in files.read_documents() if d.id in report.docs]
    items = [{k: v for k, v in item.items() if k != "text"} for item in report.items]  # ids, never the text
    journal = ForgetJournal(forgotten, sorted(chunks), pages, sorted(inbox), entity_hashes(files),
                            dict(report.request), items)
    journal.save(files.root)
    return journal


@dataclass
class _Run:
    """One pass over a journal's steps; `graph_changed`: whether what the graph is made of changed."""

    stores: ForgetStores
    journal: ForgetJournal
    report: ForgetReport
    graph_changed: bool = False


def _run_steps(run: _Run) -> None:
    actions: dict[str, Callable[[_Run], None]] = {
        "tombstones": _tombstones, "state": _state, "sleep": _sleep, "vectors": _vectors, "graph": _graph,
        "notes": _notes, "inbox": _inbox,
    }
    root = run.stores.files.root
    for step in STEPS:
        if step not in run.journal.done:
            _timed(run.report, step, lambda: actions[step](run))  # noqa: B023 - called at once
            run.journal.mark(root, step)
    close_journal(root)


def _timed(report: ForgetReport, step: str, action: Callable[[], T]) -> T:
    start = time.perf_counter()
    done = action()
    report.seconds[step] = round(time.perf_counter() - start, 3)
    return done


def _tombstones(run: _Run) -> None:
    root = run.stores.files.root
    stored = Tombstones.load(root)
    before = stored.stored()
    stored.merge(run.journal.forgotten)
    if stored.stored() == before:  # forgotten before: that forget may have been cut off before the graph
        run.graph_changed = True
    stored.save(root)


def _state(run: _Run) -> None:
    files, graph = run.stores.files, run.stores.graph
    namespace = run.stores.config.namespace(files.namespace)
    run.graph_changed |= purge_files(files, Tombstones.load(files.root), graph.ontology, namespace)


def _entity_changes(run: _Run) -> tuple[set[str], set[str]]:
    """The entities no longer in the facts since the forget began (one only a forgotten memory named),
    and those whose row changed (a property a forgotten memory gave)."""
    before, after = run.journal.entities_before, entity_hashes(run.stores.files)
    return set(before) - set(after), {i for i, h in after.items() if before.get(i, h) != h}


def _sleep(run: _Run) -> None:
    forgotten = run.journal.forgotten
    left, _ = _entity_changes(run)
    ids = frozenset(forgotten.entities | left | forgotten.docs | set(run.journal.chunks))
    run.graph_changed |= purge_sleep(run.stores.files.root, ids) > 0


def _vectors(run: _Run) -> None:
    forgotten, vectors = run.journal.forgotten, run.stores.vectors
    left, changed = _entity_changes(run)
    entities = sorted(forgotten.entities | left)
    purge_vectors(vectors, run.journal.chunks, sorted(forgotten.docs), entities, whole=run.journal.resumed)
    touched = changed | {e for e, _ in forgotten.properties} | {e for e, _ in forgotten.relations}
    rows = [r for r in entity_rows(run.stores.files.read_facts()) if r["id"] in touched]
    if rows and vectors.open("entities") is not None:  # made again without what went (and no file keeps it)
        purge_rows(vectors, "entities", Filter.ids([r["id"] for r in rows]))
        vectors.sync("entities", entity_rows(run.stores.files.read_facts()), run.stores.embedder)


def _graph(run: _Run) -> None:
    """Rebuild the graph when what it is made of changed (always after a cut-off run: whether it had
    changed is not known, and a rebuild it had begun may be left beside it)."""
    files, graph = run.stores.files, run.stores.graph
    if (run.graph_changed or run.journal.resumed) and graph.path.exists():
        compact_stores(files, graph, growth=None, run_id="forget")


def _notes(run: _Run) -> None:
    done = remove_blocks(run.stores.config, run.stores.files.namespace, run.journal.pages)
    if done is not None:
        run.report.writeback_run = done.run if done.written else None
        run.report.notes = list(done.written)
        run.report.notes_skipped = [{"path": s.path, "reason": s.reason} for s in done.skipped]


def _inbox(run: _Run) -> None:
    folder = inbox_dir(run.stores.files.root)
    for memory in run.journal.inbox:
        path = folder / f"{memory}.json"
        if path.exists():
            faults.point("forget:inbox")
            path.unlink()
