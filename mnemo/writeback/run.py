"""Write insights back into the notes, without ever damaging them.

A run plans first: each note is read, its patch computed (only the mnemo key's lines
change, see patch_frontmatter / patch_logseq) and verified by re-parsing. Then the notes
are written in batches: each is staged in a synced temp file beside it after its hash is
checked again, the batch's journal entries (how to undo each write) are made durable, and
each note is renamed into place if it still holds the bytes that were read (note_files).
A note that cannot be written safely is skipped with a reason and the run goes on.
"""

import datetime as dt
import difflib
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from mnemo.config import MnemoConfig, SourceConfig
from mnemo.errors import MnemoError, WritebackRefused
from mnemo.sources.ignore import in_folders
from mnemo.stores import durable, faults
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.forget_journal import FILE as FORGET_JOURNAL
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from mnemo.writeback.frontmatter import OptedOut, Patch, Value
from mnemo.writeback.generate import plan_source_pages
from mnemo.writeback.insights import NoteInsight, read_insights
from mnemo.writeback.journal import Journal, JournalEntry, added_blank_line
from mnemo.writeback.link_names import LinkNames
from mnemo.writeback.note_files import (
    Staged,
    digest,
    note_file,
    read_note,
    run_lock,
    stage,
    sweep_temp_files,
)
from mnemo.writeback.note_vectors import NoteVectors
from mnemo.writeback.page_files import PAGE_OP, UNDO_OP, PageChange, PagePlan, apply_pages, undo_change
from mnemo.writeback.pages import PageFacts, community_names, read_page_facts
from mnemo.writeback.values import FORMATS, ValuesFor, note_patch
from ontology import Ontology

BATCH = 64
T = TypeVar("T")


def new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("wb-%Y%m%dT%H%M%S-") + uuid.uuid4().hex[:6]


@dataclass(frozen=True)
class Skip:
    path: str
    reason: str


@dataclass(frozen=True)
class NoteChange:
    source: str
    path: str
    file: Path
    before: str
    old_text: str
    patch: Patch

    @property
    def new_text(self) -> str:
        return self.patch.apply(self.old_text)

    def diff(self) -> str:
        return "".join(difflib.unified_diff(
            self.old_text.splitlines(keepends=True), self.new_text.splitlines(keepends=True),
            f"a/{self.path}", f"b/{self.path}",
        ))


@dataclass
class WritebackPlan:
    changes: list[NoteChange] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    unchanged: int = 0
    opted_out: int = 0
    excluded: int = 0
    pages: list[PagePlan] = field(default_factory=list)

    @property
    def page_changes(self) -> list[PageChange]:
        return [c for p in self.pages for c in p.changes]


@dataclass
class WritebackReport:
    run: str
    written: list[str] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)


# -- planning -------------------------------------------------------------------------


def writable(rel: str, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    """Whether write-back may touch the note: inside an included folder (any, when none is named)
    and in no excluded one."""
    return (not include or in_folders(rel, include)) and not in_folders(rel, exclude)


def plan_writeback(
    config: MnemoConfig, namespace: str, insights: list[NoteInsight], today: str, facts: PageFacts | None = None,
) -> WritebackPlan:
    """Read every note that has insights and compute its verified patch, and the generated pages
    (when `facts` are given and a folder is configured); nothing is written."""
    plan = WritebackPlan()
    settings = config.writeback
    sources = {s.label: s for s in config.namespace(namespace).sources if s.kind in FORMATS}
    names = {label: LinkNames(source, settings.folder) for label, source in sources.items()}
    added = journal_for(config, namespace).added()
    pages = community_names(facts, settings.folder) if facts and settings.folder else {}
    notes = {i.note.id: i.note for i in insights}
    for insight in insights:
        source = sources.get(insight.note.source)
        if source is None:
            continue
        if facts and insight.note.id in facts.far.get(insight.community_id or "", set()):
            insight = replace(insight, community_id=None, community=None)  # not listed on that page
        rel = insight.note.path
        if not writable(rel, settings.include, settings.exclude) or not rel.lower().endswith(".md"):
            plan.excluded += 1
            continue
        links = names[source.label]
        blank = added_blank_line(added.get((source.label, rel)))
        values = ValuesFor(insight, links, source.kind, today, notes, pages, settings.key, settings.max_related)
        _plan_note(plan, source, rel, values, settings.key, links, blank)
    if facts is not None and settings.folder:
        for label, source in sources.items():
            plan.pages.append(plan_source_pages(facts, source, names[label], settings.folder, settings.key))
    return plan


def _plan_note(
    plan: WritebackPlan, source: SourceConfig, rel: str, values_for: Callable[[str], dict[str, Value]], key: str,
    links: LinkNames, drop_blank: bool = False,
) -> None:
    file = note_file(source.path, rel)
    if file is None:
        plan.skipped.append(Skip(rel, "its path leaves the source folder; nothing is written"))
        return
    try:
        data = read_note(file)
        text = data.decode("utf-8")
        values = values_for(text)
        patch = note_patch(text, source.kind, key, values, links, drop_blank)
    except OptedOut:
        plan.opted_out += 1
        return
    except WritebackRefused as exc:
        plan.skipped.append(Skip(rel, str(exc)))
        return
    except UnicodeDecodeError as exc:
        plan.skipped.append(Skip(rel, f"invalid UTF-8 at byte {exc.start}; the note is left as it is"))
        return
    except OSError as exc:
        plan.skipped.append(Skip(rel, f"cannot read the note ({exc.strerror})"))
        return
    if patch is None or (patch.old == "" and list(values) == ["updated"]):
        plan.unchanged += 1
        return
    plan.changes.append(NoteChange(source.label, rel, file, digest(data), text, patch))


# -- writing --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Write:
    path: str
    file: Path
    data: bytes
    expected: str
    entry: JournalEntry


def _as_write(change: NoteChange, patch: Patch, new_text: str, run: str, op: str) -> _Write:
    data = new_text.encode("utf-8")
    entry = JournalEntry(
        run, op, dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), change.source, change.path,
        str(change.file), patch.start, patch.old, patch.new, change.before, digest(data),
    )
    return _Write(change.path, change.file, data, change.before, entry)


def _guarded(report: WritebackReport, path: str, verb: str, action: Callable[[], T]) -> T | None:
    """One note's step: a refusal or an OS error becomes a reported skip, never an abort."""
    try:
        return action()
    except WritebackRefused as exc:
        report.skipped.append(Skip(path, str(exc)))
    except OSError as exc:
        report.skipped.append(Skip(path, f"cannot {verb} the note ({exc.strerror or exc})"))
    return None


def _write_batch(writes: list[_Write], journal: Journal, report: WritebackReport, verb: str) -> None:
    """Stage each note, make the batch's journal entries durable, then rename each into place."""
    staged: list[tuple[_Write, Staged]] = []
    try:
        for write in writes:
            done = _guarded(report, write.path, verb, partial(stage, write.file, write.data, write.expected))
            if done is not None:
                staged.append((write, done))
        faults.point("writeback:journal", len(staged))
        journal.append_many([write.entry for write, _ in staged])
        for write, done in staged:
            faults.point("writeback:note")
            if _guarded(report, write.path, verb, done.commit) is not None:
                report.written.append(write.path)
    finally:
        for _, done in staged:
            done.discard()
    durable.sync_folders(write.file.parent for write, _ in staged)


def _write_all(writes: list[_Write], journal: Journal, report: WritebackReport, verb: str) -> None:
    for start in range(0, len(writes), BATCH):
        _write_batch(writes[start:start + BATCH], journal, report, verb)


def apply_plan(plan: WritebackPlan, journal: Journal, run: str, op: str = "write") -> WritebackReport:
    """Write every planned change (journaled as `op`), then the generated pages; a note that cannot
    be written is reported and skipped."""
    report = WritebackReport(run, skipped=list(plan.skipped))
    _write_all([_as_write(c, c.patch, c.new_text, run, op) for c in plan.changes], journal, report, "write")
    report.skipped += [Skip(path, reason) for p in plan.pages for path, reason in p.skipped]
    _apply_pages(plan.page_changes, journal, report, PAGE_OP)
    return report


def _apply_pages(changes: list[PageChange], journal: Journal, report: WritebackReport, op: str) -> None:
    if changes:
        done, skipped = apply_pages(changes, journal, report.run, op)
        report.pages += done
        report.skipped += [Skip(path, reason) for path, reason in skipped]


def undo_run(journal: Journal, run: str, roots: dict[str, Path], undo_id: str | None = None) -> WritebackReport:
    """Restore the notes a run wrote, newest first; a note edited since is left alone, and so is
    an entry whose file is not its path inside its source's folder (`roots`: label -> folder)."""
    run, entries = journal.entries_of(run)
    report = WritebackReport(undo_id or f"undo-{run}-{uuid.uuid4().hex[:6]}")
    notes = [e for e in reversed(entries) if e.op not in (PAGE_OP, UNDO_OP)]
    writes = [_guarded(report, e.path, "restore", partial(_placed, roots, e, partial(_undo_write, e, report.run)))
              for e in notes]
    _write_all([w for w in writes if w is not None], journal, report, "restore")
    pages = [e for e in reversed(entries) if e.op == PAGE_OP]
    changes = [_guarded(report, e.path, "restore", partial(_placed, roots, e, partial(undo_change, e)))
               for e in pages]
    _apply_pages([c for c in changes if c is not None], journal, report, UNDO_OP)
    return report


def _placed(roots: dict[str, Path], entry: JournalEntry, action: Callable[[], T]) -> T:
    """The action, when the entry's file is its path inside its source's folder."""
    root = roots.get(entry.source)
    file = note_file(root, entry.path) if root is not None else None
    if file is None or Path(entry.file) != file:
        raise WritebackRefused(f"the journal names {entry.file!r}, not a note of source {entry.source!r}")
    return action()


def _undo_write(entry: JournalEntry, run: str) -> _Write:
    file = Path(entry.file)
    data = read_note(file)
    current = digest(data)
    if current == entry.before:
        raise WritebackRefused("already as it was before that run")
    text = data.decode("utf-8")
    if current == entry.after:
        patch = Patch(entry.start, entry.new, entry.old)
    elif entry.new and text.count(entry.new) == 1:
        patch = Patch(text.index(entry.new), entry.new, entry.old)
    else:
        raise WritebackRefused("the note changed since that run and its mnemo block is no longer the one written")
    restored = patch.apply(text)
    if current == entry.after and digest(restored.encode("utf-8")) != entry.before:
        raise WritebackRefused("the journal entry does not restore the recorded bytes")
    return _as_write(NoteChange(entry.source, entry.path, file, current, text, patch), patch, restored, run, "undo")


# -- a whole run ----------------------------------------------------------------------


def source_roots(config: MnemoConfig, namespace: str) -> dict[str, Path]:
    """Each source's folder by its label: where an undo may write (`undo_run`)."""
    return {s.label: s.path for s in config.namespace(namespace).sources}


def journal_for(config: MnemoConfig, namespace: str) -> Journal:
    return Journal(NamespaceFiles(config.data_root(namespace), namespace).root / "writeback" / "journal.jsonl")


def plan_namespace(config: MnemoConfig, namespace: str, ontology: Ontology, today: str | None = None) -> WritebackPlan:
    """What a write-back would change now (the dry run): read the graph and the notes, write nothing."""
    files = NamespaceFiles(config.data_root(namespace), namespace)
    settings = config.writeback
    store = GraphStore(files.graph_path, ontology, engine=config.graph.engine)
    meanings = NoteVectors.of(VectorStore(files.vectors_path).document_means())
    # more candidates than are written: those the note turns out to link already are left out
    insights = read_insights(store, 3 * settings.max_related, settings.max_mentions, settings.max_mentioned_in,
                             meanings=meanings)
    facts = None
    if settings.folder:
        with store.reading(wait_seconds=30) as graph:
            facts = read_page_facts(graph, settings.key)
        facts.keep_alike(meanings)
    return plan_writeback(config, namespace, insights, today or dt.date.today().isoformat(), facts)


def writeback_namespace(
    config: MnemoConfig, namespace: str, ontology: Ontology, *, run: str | None = None, today: str | None = None,
) -> tuple[WritebackPlan, WritebackReport]:
    """Plan the namespace's write-back from its graph and carry it out, one note at a time. Refused
    while a forget that was cut off is unfinished: the graph may still hold what it forgets."""
    root = NamespaceFiles(config.data_root(namespace), namespace).root
    if (root / FORGET_JOURNAL).exists():
        raise MnemoError(f"namespace {namespace!r}: a forget was cut off ({root / FORGET_JOURNAL}); "
                         "finish it first (`mnemo doctor --fix`, or run the forget again)")
    with run_lock(root):
        sweep_note_folders(config, namespace)
        plan = plan_namespace(config, namespace, ontology, today)
        return plan, apply_plan(plan, journal_for(config, namespace), run or new_run_id())


def undo_namespace(config: MnemoConfig, namespace: str, run: str) -> WritebackReport:
    """Undo one run of the namespace's write-back (by id or unambiguous prefix)."""
    files = NamespaceFiles(config.data_root(namespace), namespace)
    with run_lock(files.root):
        sweep_note_folders(config, namespace)
        return undo_run(journal_for(config, namespace), run, source_roots(config, namespace))


def sweep_note_folders(config: MnemoConfig, namespace: str) -> None:
    """Remove what a killed write-back left in the namespace's note folders."""
    sweep_temp_files([s.path for s in config.namespace(namespace).sources if s.kind in FORMATS and s.path.is_dir()])
