"""Incremental scanning of a namespace's sources against the previous run's manifest.

The manifest holds one row per source file: (source, path, mtime_ns, size, file_hash,
doc_ids). A file whose mtime and size are unchanged is not read again; a file whose bytes
are unchanged is not parsed again; a file that disappeared while a new file with the same
bytes appeared is a rename and keeps its document ids.
"""

import datetime as dt
import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from mnemo.config import SourceConfig
from mnemo.documents import Document, ManifestEntry, dated
from mnemo.errors import SourceError
from mnemo.sources import chatgpt, claude, inbox, jsonl, locomo, logseq, memory_files, obsidian
from mnemo.sources.chats import MAX_EXPORT_BYTES
from mnemo.sources.daily_notes import DailyNotes, daily_notes
from mnemo.sources.generated import is_generated
from mnemo.sources.logseq_properties import without_properties
from mnemo.sources.note_layout import without_block
from mnemo.sources.walk import Problem, read_regular, walk_files

MAX_FILE_BYTES = 20 * 1024 * 1024
EMPTY_FILE = "empty file, nothing to ingest"
GENERATED = "generated"  # the fingerprint of a page mnemo generated: it never changes, it is never read
Parser = Callable[[bytes, str, str, str, str | None], list[Document]]


@dataclass
class ScanResult:
    documents: list[Document] = field(default_factory=list)
    manifest: list[ManifestEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    renamed: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0  # documents of files that did not change (all of them when nothing did)
    ignored: list[str] = field(
        default_factory=list
    )  # files read that hold no document (empty, outside a graph's folders)


def _decode(data: bytes, rel: str) -> str:
    if not data.strip():
        raise SourceError(rel, EMPTY_FILE)
    if b"\x00" in data[:8192]:
        raise SourceError(rel, "binary content (NUL bytes), not a text note")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(rel, f"invalid UTF-8 at byte {exc.start}") from None


def parse_obsidian(
    data: bytes, namespace: str, source: str, rel: str, modified: str | None, daily: DailyNotes | None = None,
) -> list[Document]:
    text = _decode(data, rel)
    return [obsidian.parse_note(text, namespace=namespace, source=source, rel_path=rel, modified=modified, daily=daily)]


def parse_inbox(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    return inbox.parse_file(data, namespace, source, rel, modified, others=lambda fmt: PARSERS.get(fmt, (None,))[0])


def parse_locomo(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    return locomo.parse_locomo(_decode(data, rel), namespace=namespace, source=source, rel_path=rel, modified=modified)


def parse_memories(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    return memory_files.parse_memory(
        _decode(data, rel), namespace=namespace, source=source, rel_path=rel, modified=modified
    )


PARSERS: dict[str, tuple[Parser, tuple[str, ...]]] = {
    "obsidian": (parse_obsidian, obsidian.SUFFIXES),
    "logseq": (logseq.parse_file, logseq.SUFFIXES),
    "chatgpt": (chatgpt.parse_export, chatgpt.SUFFIXES),
    "claude": (claude.parse_export, claude.SUFFIXES),
    "jsonl": (jsonl.parse_file, jsonl.SUFFIXES),
    "inbox": (parse_inbox, inbox.SUFFIXES),
    "locomo": (parse_locomo, locomo.SUFFIXES),
    "memories": (parse_memories, memory_files.SUFFIXES),
}
# Chat exports are single large files; notes and pages keep the stricter limit.
SIZE_LIMITS = {
    "chatgpt": MAX_EXPORT_BYTES,
    "claude": MAX_EXPORT_BYTES,
    "jsonl": MAX_EXPORT_BYTES,
    "inbox": MAX_EXPORT_BYTES,
}


@dataclass(frozen=True)
class PreparedSource:
    parse: Parser
    suffixes: tuple[str, ...]
    excludes: tuple[str, ...]
    limit: int


def prepare_source(source: SourceConfig) -> PreparedSource | Problem:
    """The parser bound to what the source folder's own settings say, the folders it skips
    and its size limit; or the problem that stops the source from being read."""
    if source.kind not in PARSERS:
        return Problem(str(source.path), f"source kind {source.kind!r} is not supported yet", True)
    if not source.path.exists():
        return Problem(str(source.path), "source folder does not exist", True)
    parse, suffixes = PARSERS[source.kind]
    excludes: tuple[str, ...] = ()
    if source.kind == "obsidian":
        excludes = obsidian.default_excludes(source.path)
        parse = functools.partial(parse_obsidian, daily=daily_notes(source.path))
    elif source.kind == "logseq":
        parse = functools.partial(logseq.parse_file, settings=logseq.graph_settings(source.path))
        excludes = logseq.DEFAULT_EXCLUDES
    return PreparedSource(
        parse, suffixes, tuple(source.exclude) + excludes, SIZE_LIMITS.get(source.kind, MAX_FILE_BYTES)
    )


def file_fingerprint(data: bytes, kind: str, key: str = "mnemo") -> str:
    """The file's hash for change detection; in notes, the write-back key's lines do not count."""
    try:
        text = data.decode("utf-8") if kind in ("obsidian", "logseq") else None
    except UnicodeDecodeError:
        text = None
    if text is None:
        return hashlib.sha256(data).hexdigest()[:24]
    if is_generated(data, key):
        return GENERATED
    stripped = without_block(text, key)
    if kind == "logseq":
        stripped = without_properties(stripped, key)
    return hashlib.sha256(stripped.encode("utf-8")).hexdigest()[:24]


def without_writeback(doc: Document, key: str = "mnemo") -> Document:
    """mnemo's own write-back is not input: its key (Logseq: `key-*` properties) and their links go."""
    def ours(name: str | None) -> bool:
        return name is not None and (name.lower() == key.lower() or name.lower().startswith(key.lower() + "-"))

    if not any(ours(k) for k in doc.properties) and not any(ours(link.property) for link in doc.links):
        return doc
    properties = {k: v for k, v in doc.properties.items() if not ours(k)}
    return replace(doc, properties=properties, links=[link for link in doc.links if not ours(link.property)])


def scan_source(
    namespace: str, source: SourceConfig, previous: dict[str, ManifestEntry],
    previous_docs: dict[str, Document], result: ScanResult, writeback_key: str = "mnemo",
    earlier: dict[str, list[Problem]] | None = None,
) -> None:
    """Scan one source into `result`. `earlier`: the last scan's problems by path, which an
    unchanged file that holds no document (an empty one) keeps until it changes."""
    prepared = prepare_source(source)
    if isinstance(prepared, Problem):
        result.problems.append(prepared)
        return
    label, earlier = source.label, earlier or {}
    fresh: list[tuple[ManifestEntry, list[Document]]] = []
    for rel, path, stat in walk_files(source.path, prepared.suffixes, prepared.excludes, result.problems):
        old = previous.pop(f"{label}\x1f{rel}", None)
        same_stat = old is not None and old.mtime_ns == stat.st_mtime_ns and old.size == stat.st_size
        if old and same_stat and _stands(old, previous_docs, source):
            _keep(old, previous_docs, result, earlier.get(rel, []))
            continue
        data = _read_within(rel, path, stat.st_size, prepared.limit)
        if isinstance(data, Problem):
            result.problems.append(data)
            continue
        file_hash = file_fingerprint(data, source.kind, writeback_key)
        if file_hash == GENERATED:
            continue  # a page mnemo generated: never the person's input
        if old and old.file_hash == file_hash and _stands(old, previous_docs, source):
            restamped = replace(old, mtime_ns=stat.st_mtime_ns, size=stat.st_size)
            _keep(restamped, previous_docs, result, earlier.get(rel, []))
            continue
        modified = dt.datetime.fromtimestamp(stat.st_mtime, dt.UTC).isoformat(timespec="seconds")
        docs = _parse(prepared.parse, data, (namespace, label, rel, modified), writeback_key)
        if isinstance(docs, Problem):
            result.problems.append(docs)
            continue
        result.problems.extend(Problem(rel, p, False) for d in docs for p in d.problems)
        entry = ManifestEntry(label, rel, stat.st_mtime_ns, stat.st_size, file_hash, tuple(d.id for d in docs))
        (result.changed if old and docs else result.new if docs else result.ignored).append(rel)
        result.problems.extend([Problem(rel, EMPTY_FILE, False)] if not data.strip() else [])
        fresh.append((entry, docs))
    _settle_renames(label, previous, fresh, result, previous_docs)


def _read_within(rel: str, path: str, size: int, limit: int) -> bytes | Problem:
    """The file's bytes, or why they are not read (over the source's size limit, or unreadable)."""
    if size > limit:
        return Problem(rel, f"file is {size} bytes, over the {limit}-byte limit", True)
    try:
        return read_regular(path)
    except OSError as exc:
        return Problem(rel, f"cannot read file ({exc.strerror})", True)


def _parse(
    parse: Parser, data: bytes, where: tuple[str, str, str, str | None], writeback_key: str
) -> list[Document] | Problem:
    """The documents of one file's bytes (none for an empty file), or why it cannot be read."""
    if not data.strip():
        return []
    namespace, label, rel, modified = where
    try:
        return [dated(without_writeback(d, writeback_key)) for d in parse(data, namespace, label, rel, modified)]
    except SourceError as exc:
        return Problem(exc.path, exc.reason, True)


def _have(entry: ManifestEntry, docs: dict[str, Document]) -> bool:
    return all(d in docs for d in entry.doc_ids)


def _stands(entry: ManifestEntry, docs: dict[str, Document], source: SourceConfig) -> bool:
    """Whether an unchanged file's documents of the last scan stand (a memory's, until it expires;
    one stored before notes' dates were recorded is read again)."""
    return _have(entry, docs) and all(docs[d].date_source for d in entry.doc_ids) and not (
        source.kind == "memories" and memory_files.lapsed([docs[d] for d in entry.doc_ids])
    )


def _keep(entry: ManifestEntry, previous_docs: dict[str, Document], result: ScanResult,
          earlier: list[Problem]) -> None:
    """An unchanged file: its documents of the last scan and their problems; a file holding no
    document keeps its `earlier` problems (an empty file is reported until it changes)."""
    kept = [previous_docs[d] for d in entry.doc_ids]
    result.manifest.append(entry)
    result.documents.extend(kept)
    result.problems.extend(Problem(entry.path, p, False) for d in kept for p in d.problems)
    result.problems.extend(earlier if not kept else [])
    result.unchanged += len(kept)


def _settle_renames(
    label: str, previous: dict[str, ManifestEntry], fresh: list[tuple[ManifestEntry, list[Document]]],
    result: ScanResult, previous_docs: dict[str, Document],
) -> None:
    """New files whose bytes equal a vanished file of the same source inherit its doc ids,
    and their titles before (the first one names the note's entity)."""
    vanished = {e.file_hash: k for k, e in previous.items() if e.source == label}
    for entry, docs in fresh:
        old_key = vanished.pop(entry.file_hash, None) if entry.path in result.new else None
        if old_key is not None and len(previous[old_key].doc_ids) == len(docs):
            old = previous.pop(old_key)
            docs = [replace(d, id=old_id, former_titles=_former_titles(d, previous_docs.get(old_id)))
                    for d, old_id in zip(docs, old.doc_ids)]
            entry = replace(entry, doc_ids=old.doc_ids)
            result.new.remove(entry.path)
            result.renamed.append((old.path, entry.path))
        result.manifest.append(entry)
        result.documents.extend(docs)


def _former_titles(doc: Document, before: Document | None) -> list[str]:
    """The titles a renamed document had, oldest first (its new title left out)."""
    if before is None:
        return doc.former_titles
    titles = [*before.former_titles, before.title]
    return [t for t in dict.fromkeys(titles) if t != doc.title]


def scan_namespace(
    namespace: str, sources: tuple[SourceConfig, ...], manifest: list[ManifestEntry], documents: list[Document],
    writeback_key: str = "mnemo", problems: list[Problem] | None = None,
) -> ScanResult:
    """Scan every source of a namespace; reuse what the manifest shows is unchanged (and the last
    scan's `problems` of an unchanged file that holds no document)."""
    previous = {f"{e.source}\x1f{e.path}": e for e in manifest}
    previous_docs = {d.id: d for d in documents}
    earlier: dict[str, list[Problem]] = {}
    for problem in problems or []:
        earlier.setdefault(problem.path, []).append(problem)
    result = ScanResult()
    for source in sources:
        scan_source(namespace, source, previous, previous_docs, result, writeback_key, earlier)
    result.deleted = sorted(e.path for e in previous.values())
    result.documents = _latest_per_id(result.documents)
    result.documents.sort(key=lambda d: (d.source, d.path, d.id))
    result.manifest.sort(key=lambda e: (e.source, e.path))
    return result


def _latest_per_id(docs: list[Document]) -> list[Document]:
    """One document per id: a conversation found in several exports keeps its newest copy."""
    best: dict[str, Document] = {}
    for doc in docs:
        kept = best.get(doc.id)
        if kept is None or (doc.modified or "", len(doc.segments), doc.path) > (
            kept.modified or "",
            len(kept.segments),
            kept.path,
        ):
            best[doc.id] = doc
    return list(best.values())
