"""Generic JSONL chats: the documented format for any other transcript.

One JSON object per line:

    {"conversation": "c1", "speaker": "Sam", "role": "user", "text": "…", "timestamp": "2026-05-01T10:00:00Z"}

`conversation` (or `conversation_id`) groups lines into conversations (default: the file
name); `speaker` (or `role`) says who spoke; `text` (or `content`) is required;
`timestamp` is ISO 8601 or epoch seconds; `title` and `id` are optional. Lines are sorted
by timestamp within a conversation (lines without one keep their place).
"""

import json
from pathlib import PurePosixPath
from typing import Any

from mnemo.documents import Document, Segment
from mnemo.sources.chats import (
    Conversation,
    conversation_document,
    decode_text,
    documents_or_error,
    fill_timestamps,
    iso_time,
)

SUFFIXES = (".jsonl",)
FORMAT = "jsonl"


def _segment(record: dict[str, Any], line_no: int) -> Segment | str:
    text = record.get("text", record.get("content"))
    if not isinstance(text, str) or not text.strip():
        return f"line {line_no}: message has no text; skipped"
    speaker = record.get("speaker") or record.get("role") or record.get("name")
    if not isinstance(speaker, str) or not speaker.strip():
        return f"line {line_no}: message has no speaker or role; skipped"
    raw_time = record.get("timestamp", record.get("time"))
    timestamp = iso_time(raw_time)
    meta: dict[str, Any] = {"line": line_no}
    if raw_time is not None and timestamp is None:
        meta["unreadable_timestamp"] = str(raw_time)
    given_role = record.get("role")
    role = given_role if isinstance(given_role, str) else speaker
    return Segment(
        id=str(record.get("id") or f"line-{line_no}"), text=text.strip(), speaker=speaker.strip(),
        role=role.strip().lower(), timestamp=timestamp, meta=meta,
    )


def _records(text: str, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    records = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {line_no}: invalid JSON ({exc.msg}); skipped")
            continue
        if not isinstance(record, dict):
            problems.append(f"line {line_no}: a JSON {type(record).__name__}, not an object; skipped")
            continue
        records.append((line_no, record))
    return records


def parse_file(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    """Every conversation in a JSONL file as its own Document."""
    problems: list[str] = []
    default_id = PurePosixPath(rel).stem
    conversations: dict[str, Conversation] = {}
    for line_no, record in _records(decode_text(data, rel), problems):
        segment = _segment(record, line_no)
        if isinstance(segment, str):
            problems.append(segment)
            continue
        conv_id = str(record.get("conversation") or record.get("conversation_id") or default_id)
        conv = conversations.setdefault(conv_id, Conversation(conv_id, conv_id))
        if isinstance(record.get("title"), str) and record["title"].strip():
            conv.title = record["title"].strip()
        conv.turns.append(segment)
    docs = []
    for conv in conversations.values():
        dated = sorted((t for t in conv.turns if t.timestamp), key=lambda t: t.timestamp or "")
        order = iter(dated)
        conv.turns = [next(order) if t.timestamp else t for t in conv.turns]
        fill_timestamps(conv.turns, dated[0].timestamp if dated else modified)
        docs.append(
            conversation_document(conv, namespace=namespace, source=source, rel=rel, modified=modified, fmt=FORMAT)
        )
    return documents_or_error(docs, problems, rel)
