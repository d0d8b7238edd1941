"""Document, Chunk and Link types, content-addressed ids, and heading-aware chunking."""

import datetime as dt
import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import PurePosixPath
from typing import Any, Literal

from markdown_it import MarkdownIt

from mnemo.note_dates import UNDATED, folder_day, name_day, passage_day, property_date
from mnemo.note_names import shown_name

DocumentKind = Literal["note", "journal", "chat"]
# Block structure only: chunking needs headings and block line ranges, not inline markup.
_MD = MarkdownIt("commonmark").disable("inline")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_NAME_WORD = re.compile(r"[a-z0-9]+")


def content_hash(*parts: str) -> str:
    """A short, stable hex digest of the given parts (sha256, 24 hex chars)."""
    data = "\x1f".join(parts) + "\x1f" if parts else ""  # each part, then a separator: one encode, one update
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def slugify(text: str) -> str:
    """`Café Lusitano` -> `cafe_lusitano`: lower-case ASCII words joined by underscores."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "_", ascii_text.lower()).strip("_")
    return slug or content_hash(text)[:12]


def entity_id(kind: str, name: str) -> str:
    """The canonical id of an entity: `<kind>_<slug>` (`person_alice_chen`)."""
    return f"{kind}_{slugify(name)}"


def normalize_name(text: str) -> str:
    """Case-, accent- and punctuation-insensitive form of a name, for alias matching."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return " ".join(_NAME_WORD.findall(ascii_text.lower()))


class NamedWords:
    """A text's words in `normalize_name` form, to look names up in on word boundaries."""

    def __init__(self, text: str) -> None:
        self.words = f" {normalize_name(text)} "

    def names(self, name: str) -> bool:
        """Whether the text names `name` (an empty name is never named)."""
        key = normalize_name(name)
        return bool(key) and f" {key} " in self.words

    def names_any(self, names: Iterable[str]) -> bool:
        return any(self.names(name) for name in names)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _fields(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a dict, in order, without asdict's deep copy (rows are serialized at once)."""
    names = _FIELD_NAMES.get(type(obj))
    if names is None:
        names = _FIELD_NAMES[type(obj)] = tuple(f.name for f in fields(obj))
    return {name: getattr(obj, name) for name in names}


@dataclass(frozen=True)
class Link:
    """A reference from a document to another note: `[[target#heading^block|display]]`."""

    target: str
    display: str | None = None
    heading: str | None = None
    block: str | None = None
    embed: bool = False
    property: str | None = None


@dataclass
class Segment:
    """One unit of a structured document: a chat turn or an outline block.

    `episode` names the conversation/session within the document the turn belongs to
    ("" when the whole document is one episode); `branch` is "main" for the visible thread
    and "alternate" for edited or regenerated turns kept for retrieval.
    """

    id: str
    text: str
    kind: Literal["turn", "block"] = "turn"
    speaker: str = ""
    role: str = ""
    timestamp: str | None = None
    parent: str | None = None
    depth: int = 0
    episode: str = ""
    branch: str = "main"
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class Document:
    """One source file (or conversation), parsed into what the rest of mnemo needs."""

    id: str
    namespace: str
    source: str
    path: str
    title: str
    kind: DocumentKind
    body: str
    content_hash: str
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    created: str | None = None
    modified: str | None = None
    day: str | None = None
    problems: list[str] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    former_titles: list[str] = field(default_factory=list)  # titles before a rename, first one first
    # where `created` came from (`mnemo.note_dates`); "" in documents stored before it was recorded
    date_source: str = ""

    @property
    def shown_title(self) -> str:
        """What the document is called where mnemo shows its name: a note whose file name is an
        identifier by the name it gives itself (`note_names`), else its title."""
        return self.title if self.kind == "chat" else shown_name(self.title, self.properties)

    def to_row(self) -> dict[str, Any]:
        row = _fields(self)
        row["properties"] = json.dumps(self.properties, sort_keys=True, ensure_ascii=False, default=str)
        row["links"] = json.dumps([_fields(link) for link in self.links], ensure_ascii=False)
        row["segments"] = json.dumps([_fields(s) for s in self.segments], ensure_ascii=False, default=str)
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "Document":
        values = dict(row)
        values["properties"] = json.loads(values["properties"])
        values["links"] = [Link(**link) for link in json.loads(values["links"])]
        values["segments"] = [Segment(**s) for s in json.loads(values.get("segments") or "[]")]
        for key in ("aliases", "tags", "problems", "former_titles"):
            values[key] = list(values.get(key) or [])
        return cls(**values)


@dataclass
class Chunk:
    """A passage of a document: the unit of embedding and retrieval."""

    id: str
    namespace: str
    doc_id: str
    position: int
    heading: str
    text: str
    path: str
    title: str
    kind: str
    timestamp: str | None = None
    prev_id: str | None = None
    next_id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def context_text(self) -> str:
        """The text that is embedded: the note's title and heading path, then the passage."""
        head = " > ".join(p for p in (self.title, self.heading) if p)
        return f"{head}\n{self.text}" if head else self.text

    def to_row(self) -> dict[str, Any]:
        row = _fields(self)
        row["metadata"] = json.dumps(self.metadata, sort_keys=True, ensure_ascii=False)
        return row


@dataclass(frozen=True)
class _Section:
    heading: str
    text: str


def _sections(body: str) -> list[_Section]:
    """Split Markdown into heading-scoped blocks, keeping each block's original source lines."""
    lines = body.splitlines()
    tokens = _MD.parse(body)
    path: list[tuple[int, str]] = []
    sections: list[_Section] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open":
            level = int(token.tag[1:])
            title = tokens[i + 1].content.strip()
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, title)]
            i += 3
            continue
        if token.level == 0 and token.map and token.nesting in (0, 1):
            start, end = token.map
            text = "\n".join(lines[start:end]).strip()
            if text:
                sections.append(_Section(" > ".join(t for _, t in path), text))
            i = _skip_block(tokens, i)
            continue
        i += 1
    return sections


def _skip_block(tokens: list[Any], i: int) -> int:
    """Index after the top-level block that starts at tokens[i]."""
    if tokens[i].nesting == 0:
        return i + 1
    depth = 0
    while i < len(tokens):
        depth += tokens[i].nesting
        i += 1
        if depth == 0:
            return i
    return i


def _split_long(text: str, max_words: int) -> list[str]:
    """Passages of at most max_words: whole sentences packed together, a sentence longer than
    the limit cut into windows of max_words words. Linear in the text's size: word counts are
    kept as sentences are added, and a long sentence is cut in one pass."""
    if len(text.split()) <= max_words:
        return [text]
    pieces: list[str] = []
    current: list[str] = []
    count = 0
    for sentence in _SENTENCE_END.split(text):
        words = len(sentence.split())
        if current and count + words > max_words:
            pieces.append(" ".join(current))
            current, count = [], 0
        current.append(sentence)
        count += words
        if count > max_words:
            rest = _cut_windows(" ".join(current).split(), max_words, pieces)
            current, count = [" ".join(rest)], len(rest)
    if current and " ".join(current).strip():
        pieces.append(" ".join(current))
    return pieces


def _cut_windows(words: list[str], max_words: int, pieces: list[str]) -> list[str]:
    """Append full windows of max_words words to pieces; return the last (1..max_words) words."""
    start = 0
    while len(words) - start > max_words:
        pieces.append(" ".join(words[start:start + max_words]))
        start += max_words
    return words[start:]


def _merge_sections(sections: list[_Section], max_words: int) -> list[_Section]:
    """Pack consecutive blocks under the same heading into passages of at most max_words."""
    merged: list[_Section] = []
    for section in sections:
        for piece in _split_long(section.text, max_words):
            last = merged[-1] if merged else None
            if (
                last is not None
                and last.heading == section.heading
                and len(last.text.split()) + len(piece.split()) <= max_words
            ):
                merged[-1] = _Section(last.heading, f"{last.text}\n\n{piece}")
            else:
                merged.append(_Section(section.heading, piece))
    return merged


def written(doc: Document, heading: str, text: str) -> str | None:
    """When a passage of a note was written: its journal day, else the date of the dated item it
    is (`note_dates.passage_day`), else the note's date; never the file's time (a chat, whose
    source gives no date, keeps it)."""
    if doc.day:
        return doc.day
    return passage_day(heading, text) or doc.created or (doc.modified if doc.kind == "chat" else None)


def chunk_document(doc: Document, max_words: int = 180) -> list[Chunk]:
    """Heading/paragraph-aware chunks with ids that depend on content, not on position.

    A chunk's id hashes the namespace, the document id, its heading path, its text and the
    number of identical passages before it, so editing one paragraph leaves the ids of the
    others unchanged, and a renamed note (same document id) keeps all of them.
    """
    sections = _merge_sections(_sections(doc.body), max_words)
    seen: dict[tuple[str, str], int] = {}
    chunks: list[Chunk] = []
    for position, section in enumerate(sections):
        key = (section.heading, section.text)
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        chunk_id = "chunk_" + content_hash(doc.namespace, doc.id, section.heading, section.text, str(occurrence))
        chunks.append(
            Chunk(
                id=chunk_id, namespace=doc.namespace, doc_id=doc.id, position=position,
                heading=section.heading, text=section.text, path=doc.path, title=doc.title,
                kind=doc.kind, timestamp=written(doc, section.heading, section.text),
            )
        )
    for before, after in zip(chunks, chunks[1:]):
        after.prev_id = before.id
        before.next_id = after.id
    return chunks


@dataclass(frozen=True)
class ManifestEntry:
    """One scanned source file: where it is, its size, time and hash, and the documents it made."""

    source: str
    path: str
    mtime_ns: int
    size: int
    file_hash: str
    doc_ids: tuple[str, ...]


def without_passages(docs: list[Document], passages: list[Chunk]) -> list[Document]:
    """The documents without the text of these passages (of theirs): each paragraph of a passage
    leaves the body (and the turn or block that held it), matched word by word (a passage joins
    the sentences of a long paragraph with single spaces)."""
    by_doc: dict[str, list[Chunk]] = {}
    for passage in passages:
        by_doc.setdefault(passage.doc_id, []).append(passage)
    return [_cut(d, by_doc[d.id]) if d.id in by_doc else d for d in docs]


def _cut(doc: Document, passages: list[Chunk]) -> Document:
    patterns = [re.compile(r"\s+".join(re.escape(w) for w in part.split()))
                for passage in passages for part in passage.text.split("\n\n") if part.split()]
    segments = [replace(s, text=_without(s.text, patterns)) for s in doc.segments]
    return replace(doc, body=_without(doc.body, patterns), segments=segments)


def _without(text: str, patterns: list[re.Pattern[str]]) -> str:
    for pattern in patterns:
        text = pattern.sub("", text)
    return text


def dated(doc: Document, today: dt.date | None = None) -> Document:
    """The document with its `created` date and `date_source` from what its owner wrote."""
    if doc.day:
        return replace(doc, created=doc.created or doc.day, date_source="journal")
    key, found = property_date(doc.properties)
    if found:
        return replace(doc, created=found, date_source=f"frontmatter:{key}")
    if doc.created:
        return replace(doc, date_source="source")
    today = today or dt.date.today()
    path = PurePosixPath(doc.path)
    for source, day in (("title", name_day(doc.title, today) or name_day(path.stem, today)),
                        ("path", folder_day(str(path.parent)))):
        if day:
            return replace(doc, created=day, date_source=source)
    return replace(doc, date_source=UNDATED)
