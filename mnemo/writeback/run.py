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
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

from mnemo.config import MnemoConfig, SourceConfig
from mnemo.errors import WritebackRefused
from mnemo.sources.logseq import graph_settings
from mnemo.sources.logseq_properties import page_name, page_properties
from mnemo.sources.markdown import split_frontmatter
from mnemo.sources.note_layout import layout
from mnemo.stores import durable
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.writeback.frontmatter import OptedOut, Patch, Value, frontmatter_patch
from mnemo.writeback.insights import NoteInsight, NoteRef, read_insights
from mnemo.writeback.journal import Journal, JournalEntry, added_blank_line
from mnemo.writeback.journal_days import LogseqDays
from mnemo.writeback.logseq import logseq_patch
from mnemo.writeback.note_files import (
    Staged,
    digest,
    read_note,
    run_lock,
    stage,
    sweep_temp_files,
)
from ontology import Ontology

FORMATS = {"obsidian": "frontmatter", "logseq": "logseq"}
BATCH = 64
T = TypeVar("T")
_OBSIDIAN_FORBIDDEN = set("[]#^|")
_TITLE_SCAN_CHARS = 16384


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


@dataclass
class WritebackReport:
    run: str
    written: list[str] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)


# -- planning -------------------------------------------------------------------------


class LinkNames:
    """How a source's notes are linked: Obsidian by unique file name (else path), Logseq by page name
    (journal pages by the graph's `:journal/page-title-format`)."""

    def __init__(self, source: SourceConfig) -> None:
        self.kind = source.kind
        self.stems: dict[str, int] = {}
        self.titles: dict[str, str] = {}
        files = _note_files(source.path, (".md", ".org") if self.kind == "logseq" else (".md",))
        self.days = LogseqDays(source.path, graph_settings(source.path), files) if self.kind == "logseq" else None
        for rel in files:
            stem = Path(rel).stem.lower()
            self.stems[stem] = self.stems.get(stem, 0) + 1
            if self.days is not None:
                title = _logseq_title(source.path / rel) or self.days.title(rel)
                if title:
                    self.titles[rel] = title

    def name(self, note: NoteRef) -> str | None:
        stem = Path(note.path).stem
        if self.kind == "logseq":
            name = page_name(stem, self.titles.get(note.path))
            return None if "[[" in name or "]]" in name or not name else name
        name = stem if self.stems.get(stem.lower(), 0) <= 1 else note.path.removesuffix(".md")
        return None if _OBSIDIAN_FORBIDDEN & set(name) else name


def _note_files(root: Path, suffixes: tuple[str, ...]) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [Path(folder, n).relative_to(root).as_posix() for n in files if n.lower().endswith(suffixes)]
    return found


def _logseq_title(file: Path) -> str | None:
    """A Logseq page's `title::` property (or frontmatter `title:`), which names the page."""
    try:
        with open(file, encoding="utf-8") as handle:
            head = handle.read(_TITLE_SCAN_CHARS)
    except (OSError, UnicodeDecodeError):
        return None
    title = page_properties(head).get("title")
    if title is None and head.removeprefix("\ufeff").startswith("---"):
        value = split_frontmatter(head.removeprefix("\ufeff")).properties.get("title")
        title = value if isinstance(value, str) else None
    return title


def note_values(insight: NoteInsight, links: LinkNames, today: str) -> dict[str, Value]:
    """What is written for one note, in a fixed key order with stably sorted lists. No internal
    ids or scores: entities by name, related notes as links, the day the insights last changed."""
    values: dict[str, Value] = {}
    related = [f"[[{n}]]" for r in insight.related if (n := links.name(r))]
    if related:
        values["related"] = related
    if insight.mentions:
        values["mentions"] = list(insight.mentions)
    if insight.community:
        values["community"] = insight.community
    if insight.summary:
        values["summary"] = insight.summary
    values["updated"] = dt.date.fromisoformat(today)
    return values


def logseq_values(values: dict[str, Value], links: LinkNames | None = None) -> dict[str, str]:
    """Page-property values: links as `[[a]], [[b]]`; text in quotes, so Logseq makes no page of it;
    the day as a link to its journal page when that page exists."""
    flat = {}
    for name, value in values.items():
        if name == "related" and isinstance(value, list):
            flat[name] = ", ".join(value)
        elif isinstance(value, dt.date):
            day = _logseq_day(value, links)
            flat[name] = day if day.startswith("[[") else f'"{day}"'
        else:
            text = ", ".join(value) if isinstance(value, list) else str(value)
            flat[name] = '"' + " ".join(text.replace('"', "'").split()) + '"'
    return flat


def note_patch(
    text: str, kind: str, key: str, values: dict[str, Value], links: LinkNames | None = None, drop_blank: bool = False,
) -> Patch | None:
    """The patch for one note: frontmatter for Obsidian notes and Logseq pages that use it. `drop_blank`:
    an earlier write-back put a blank line after its Logseq lines (see patch_logseq)."""
    if FORMATS[kind] == "logseq" and layout(text).yaml_start is None:
        return logseq_patch(text, key, logseq_values(values, links), drop_blank=drop_blank)
    if FORMATS[kind] == "logseq":
        values = {name: _logseq_day(v, links) if isinstance(v, dt.date) else v for name, v in values.items()}
    return frontmatter_patch(text, key, values)


def _logseq_day(day: dt.date, links: LinkNames | None) -> str:
    """In a Logseq page's frontmatter, a day is a link to its journal page, or the date as text."""
    return (links.days.link(day.isoformat()) if links and links.days else None) or day.isoformat()


def _excluded(rel: str, folders: tuple[str, ...]) -> bool:
    return any(rel == f or rel.startswith(f.strip("/") + "/") for f in folders if f.strip("/"))


def plan_writeback(config: MnemoConfig, namespace: str, insights: list[NoteInsight], today: str) -> WritebackPlan:
    """Read every note that has insights and compute its verified patch; nothing is written."""
    plan = WritebackPlan()
    sources = {s.label: s for s in config.namespace(namespace).sources if s.kind in FORMATS}
    names = {label: LinkNames(source) for label, source in sources.items()}
    added = journal_for(config, namespace).added()
    for insight in insights:
        source = sources.get(insight.note.source)
        if source is None:
            continue
        rel = insight.note.path
        if _excluded(rel, config.writeback.exclude) or not rel.lower().endswith(".md"):
            plan.excluded += 1
            continue
        links = names[source.label]
        blank = added_blank_line(added.get((source.label, rel)))
        _plan_note(plan, source, rel, note_values(insight, links, today), config.writeback.key, links, blank)
    return plan


def _plan_note(
    plan: WritebackPlan, source: SourceConfig, rel: str, values: dict[str, Value], key: str, links: LinkNames,
    drop_blank: bool = False,
) -> None:
    file = source.path / rel
    try:
        data = read_note(file)
        text = data.decode("utf-8")
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
        journal.append_many([write.entry for write, _ in staged])
        for write, done in staged:
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
    """Write every planned change (journaled as `op`); a note that cannot be written is reported and skipped."""
    report = WritebackReport(run, skipped=list(plan.skipped))
    _write_all([_as_write(c, c.patch, c.new_text, run, op) for c in plan.changes], journal, report, "write")
    return report


def undo_run(journal: Journal, run: str, undo_id: str | None = None) -> WritebackReport:
    """Restore the notes a run wrote, newest first; a note edited since is left alone."""
    run, entries = journal.entries_of(run)
    report = WritebackReport(undo_id or f"undo-{run}-{uuid.uuid4().hex[:6]}")
    writes = [_guarded(report, e.path, "restore", partial(_undo_write, e, report.run)) for e in reversed(entries)]
    _write_all([w for w in writes if w is not None], journal, report, "restore")
    return report


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


def journal_for(config: MnemoConfig, namespace: str) -> Journal:
    return Journal(NamespaceFiles(config.data_dir, namespace).root / "writeback" / "journal.jsonl")


def plan_namespace(config: MnemoConfig, namespace: str, ontology: Ontology, today: str | None = None) -> WritebackPlan:
    """What a write-back would change now (the dry run): read the graph and the notes, write nothing."""
    files = NamespaceFiles(config.data_dir, namespace)
    settings = config.writeback
    insights = read_insights(GraphStore(files.graph_path, ontology), settings.max_related, settings.max_mentions)
    return plan_writeback(config, namespace, insights, today or dt.date.today().isoformat())


def writeback_namespace(
    config: MnemoConfig, namespace: str, ontology: Ontology, *, run: str | None = None, today: str | None = None,
) -> tuple[WritebackPlan, WritebackReport]:
    """Plan the namespace's write-back from its graph and carry it out, one note at a time."""
    with run_lock(NamespaceFiles(config.data_dir, namespace).root):
        _sweep(config, namespace)
        plan = plan_namespace(config, namespace, ontology, today)
        return plan, apply_plan(plan, journal_for(config, namespace), run or new_run_id())


def undo_namespace(config: MnemoConfig, namespace: str, run: str) -> WritebackReport:
    """Undo one run of the namespace's write-back (by id or unambiguous prefix)."""
    files = NamespaceFiles(config.data_dir, namespace)
    with run_lock(files.root):
        _sweep(config, namespace)
        return undo_run(journal_for(config, namespace), run)


def _sweep(config: MnemoConfig, namespace: str) -> None:
    """Remove what a killed write-back left in the namespace's note folders."""
    sweep_temp_files([s.path for s in config.namespace(namespace).sources if s.kind in FORMATS and s.path.is_dir()])
