"""What every chat source shares: JSON loading, timestamps, and conversation Documents.

A conversation becomes one Document of kind `chat`. Its id hashes the namespace, the
source and the conversation's own id, so it is stable across runs, across re-exports and
when the export file is renamed or moved. Its segments are the turns: the visible thread
first (branch "main"), then edited or regenerated turns (branch "alternate").
"""

import datetime as dt
import io
import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from mnemo.documents import Document, Segment, content_hash
from mnemo.errors import SourceError

# Files a ChatGPT or Claude export ships beside conversations.json: not conversations.
SIDE_FILES = frozenset({
    "user.json", "users.json", "message_feedback.json", "model_comparisons.json", "projects.json",
    "shared_conversations.json",
})
MAX_EXPORT_BYTES = 512 * 1024 * 1024


@dataclass
class Conversation:
    """A parsed conversation before it becomes a Document."""

    conversation_id: str
    title: str
    turns: list[Segment] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    created: str | None = None
    problems: list[str] = field(default_factory=list)


def decode_text(data: bytes, rel: str) -> str:
    if not data.strip():
        raise SourceError(rel, "empty file, nothing to ingest")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(rel, f"invalid UTF-8 at byte {exc.start}") from None


def load_json(data: bytes, rel: str) -> Any:
    """Parse a JSON export; a truncated or broken file names the line and column."""
    text = decode_text(data, rel)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = " (the file looks truncated)" if exc.pos >= len(text.rstrip()) - 1 else ""
        raise SourceError(rel, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}") from None
    except RecursionError:
        raise SourceError(rel, "invalid JSON: nested too deeply") from None


def conversation_list(data: Any, rel: str) -> list[Any]:
    """An export's conversations: a list, or a single conversation object."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        return [data]
    raise SourceError(rel, f"expected a list of conversations, found a JSON {type(data).__name__}")


def conversation_record(
    raw: Any, index: int, id_keys: tuple[str, str], title_key: str, body_key: str, body_type: type
) -> tuple[str, Any] | str:
    """(conversation id, body) of one export record, or the reason it is skipped."""
    if not isinstance(raw, dict):
        return f"conversation #{index} is a JSON {type(raw).__name__}, not an object; skipped"
    conv_id = raw.get(id_keys[0]) or raw.get(id_keys[1])
    if not isinstance(conv_id, str) or not conv_id:
        return f"conversation #{index} ({raw.get(title_key)!r}) has no {id_keys[0]}; skipped"
    body = raw.get(body_key)
    if not isinstance(body, body_type) or not body:
        return f"conversation {conv_id!r} has no {body_key}; skipped"
    return conv_id, body


def iso_time(value: Any) -> str | None:
    """Epoch seconds or an ISO string -> `YYYY-MM-DDTHH:MM:SS+00:00` (UTC); None if unusable."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        seconds = value / 1000 if value > 1e11 else value
        try:
            return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="seconds")
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00")
        try:
            parsed = dt.datetime.fromisoformat(text)
        except ValueError:
            return None
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=dt.UTC)
        return parsed.astimezone(dt.UTC).isoformat(timespec="seconds")
    return None


def fill_timestamps(turns: list[Segment], fallback: str | None) -> None:
    """Turns without a time take the previous turn's (or the conversation's) time."""
    last = fallback
    for turn in turns:
        if turn.timestamp:
            last = turn.timestamp
        else:
            turn.timestamp = last


def transcript(turns: list[Segment]) -> str:
    """The visible thread as text: one paragraph per turn, led by the speaker."""
    return "\n\n".join(f"**{t.speaker}:** {t.text}" for t in turns if t.branch == "main")


def conversation_document(
    conv: Conversation, *, namespace: str, source: str, rel: str, modified: str | None, fmt: str
) -> Document:
    """One conversation as a chat Document with its turns as segments."""
    stamps = sorted(t.timestamp for t in conv.turns if t.timestamp)
    created = conv.created or (stamps[0] if stamps else None)
    alternates = sum(1 for t in conv.turns if t.branch != "main")
    properties = {
        "format": fmt, "conversation_id": conv.conversation_id, "turns": len(conv.turns) - alternates,
        "alternate_turns": alternates, **conv.properties,
    }
    payload = json.dumps([(t.id, t.speaker, t.text, t.timestamp, t.branch) for t in conv.turns], ensure_ascii=False)
    return Document(
        id="doc_" + content_hash(namespace, source, "conversation", conv.conversation_id),
        namespace=namespace, source=source, path=rel, title=conv.title or f"Conversation {conv.conversation_id[:8]}",
        kind="chat", body=transcript(conv.turns), content_hash=content_hash(conv.title, payload),
        properties=properties, created=created, modified=stamps[-1] if stamps else modified,
        problems=list(conv.problems), segments=conv.turns,
    )


def documents_or_error(docs: list[Document], file_problems: list[str], rel: str) -> list[Document]:
    """File-level problems ride on the first document; a file with no conversation left fails."""
    if not docs:
        if file_problems:
            raise SourceError(rel, "; ".join(file_problems[:5]) + (" …" if len(file_problems) > 5 else ""))
        return []
    docs[0].problems = file_problems + docs[0].problems
    return docs


def zip_members(data: bytes, rel: str) -> list[tuple[str, bytes]]:
    """(member path, bytes) of every `conversations.json` in an export archive. The sizes the
    archive's header gives are checked first, and the real sizes while unpacking: members are
    inflated a block at a time, and one that passes its header's size or the byte budget is
    refused there, before it fills memory."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        wanted = [i for i in archive.infolist() if PurePosixPath(i.filename).name.lower() == "conversations.json"]
        if sum(i.file_size for i in wanted) > MAX_EXPORT_BYTES:
            raise SourceError(rel, f"the archive's conversations unpack to more than {MAX_EXPORT_BYTES} bytes")
        members, budget = [], MAX_EXPORT_BYTES
        for info in wanted:
            raw = _inflate(archive, info, budget, rel)
            budget -= len(raw)
            members.append((f"{rel}!{info.filename}", raw))
        return members
    except (zipfile.LargeZipFile, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise SourceError(rel, f"not a readable zip archive ({exc})") from None


ZIP_BLOCK = 1 << 20


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: int, rel: str) -> bytes:
    """A member's bytes, read in blocks of ZIP_BLOCK (a plain `read()` inflates a whole member
    in one call, however much its header understates it)."""
    parts: list[bytes] = []
    total = 0
    try:
        with archive.open(info) as handle:
            while block := handle.read(ZIP_BLOCK):
                total += len(block)
                limit = min(budget, info.file_size)
                if total > limit:
                    raise SourceError(rel, f"{info.filename} unpacks to more than {limit} bytes; refused")
                parts.append(block)
    except zipfile.BadZipFile as exc:
        raise SourceError(rel, f"{info.filename} does not unpack to the {info.file_size} bytes the archive's header "
                               f"gives (a damaged or crafted archive: {exc}); refused") from None
    return b"".join(parts)


def export_documents(
    data: bytes, namespace: str, source: str, rel: str, modified: str | None, fmt: str,
    parse: Callable[[Any, int], "Conversation | str"],
) -> list[Document]:
    """Every readable conversation of an export file (or zip archive) as its own Document."""
    if PurePosixPath(rel).name.lower() in SIDE_FILES:
        return []
    if rel.lower().endswith(".zip"):
        return [
            d
            for member, raw in zip_members(data, rel)
            for d in export_documents(raw, namespace, source, member, modified, fmt, parse)
        ]
    return conversations_to_documents(load_json(data, rel), namespace, source, rel, modified, fmt, parse)


def conversations_to_documents(
    loaded: Any, namespace: str, source: str, rel: str, modified: str | None, fmt: str,
    parse: Callable[[Any, int], "Conversation | str"],
) -> list[Document]:
    """The conversations of an already parsed export as Documents."""
    docs: list[Document] = []
    file_problems: list[str] = []
    for index, raw in enumerate(conversation_list(loaded, rel)):
        conv = parse(raw, index)
        if isinstance(conv, str):
            file_problems.append(conv)
        elif not conv.turns:
            file_problems.append(f"conversation {conv.conversation_id!r} has no message with text; skipped")
            file_problems.extend(conv.problems)
        else:
            docs.append(
                conversation_document(conv, namespace=namespace, source=source, rel=rel, modified=modified, fmt=fmt)
            )
    return documents_or_error(docs, file_problems, rel)
