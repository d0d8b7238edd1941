"""Claude.ai exports (`conversations.json`): one Document per conversation.

Messages are sorted by `created_at` (exports are not in order). When messages name a
`parent_message_uuid`, the visible thread is the path from the root to the latest leaf
(or to `current_leaf_message_uuid` when the export has it); retried answers on other
paths are kept as alternate turns. Text blocks and attachments' extracted text are kept;
thinking, tool use and tool results are only noted in the turn's metadata. The export's
`memories.json` and `projects.json` are read as notes (claude_side.py).
"""

from pathlib import PurePosixPath
from typing import Any

from mnemo.documents import Document, Segment
from mnemo.sources import claude_side
from mnemo.sources.chats import (
    Conversation,
    conversation_record,
    export_documents,
    fill_timestamps,
    iso_time,
)

SUFFIXES = (".json", ".zip")
FORMAT = "claude"


def message_text(message: dict[str, Any]) -> tuple[str, list[str]]:
    """Text blocks (or the old `text` field) plus attachments; the other block types, noted."""
    notes: list[str] = []
    blocks = message.get("content")
    parts: list[str] = []
    if isinstance(blocks, list) and blocks:
        for block in blocks:
            kind = str(block.get("type") or "unknown") if isinstance(block, dict) else "unknown"
            if kind == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            else:
                notes.append(kind)
    if not "".join(parts).strip() and isinstance(message.get("text"), str):
        parts = [message["text"]]
    for attachment in message.get("attachments") or []:
        if isinstance(attachment, dict) and str(attachment.get("extracted_content") or "").strip():
            parts.append(f"[attachment {attachment.get('file_name') or ''}]\n{attachment['extracted_content']}")
    return "\n\n".join(p.strip() for p in parts if p.strip()), notes


def _segment(message: dict[str, Any], index: int) -> Segment:
    text, notes = message_text(message)
    uuid = str(message.get("uuid") or f"message-{index}")
    sender = str(message.get("sender") or "unknown")
    meta: dict[str, Any] = {"message_id": uuid}
    if notes:
        meta["not_text"] = sorted(set(notes))
    files = [str(f.get("file_name") or "") for f in message.get("files") or [] if isinstance(f, dict)]
    if files:
        meta["files"] = files
    parent = message.get("parent_message_uuid")
    return Segment(
        id=uuid, text=text, speaker=sender, role="user" if sender == "human" else sender,
        timestamp=iso_time(message.get("created_at")), parent=str(parent) if parent else None, meta=meta,
    )


def _main_path(turns: list[Segment], leaf_id: str | None) -> set[str]:
    """Ids on the path from the root to the chosen leaf (all ids when there is no tree)."""
    by_id = {t.id: t for t in turns}
    if not any(t.parent in by_id for t in turns):
        return set(by_id)
    parents = {t.parent for t in turns}
    leaves = [t for t in turns if t.id not in parents]
    leaf = by_id.get(leaf_id or "") or max(leaves or turns, key=lambda t: (t.timestamp or "", t.id))
    path: set[str] = set()
    node: Segment | None = leaf
    while node is not None and node.id not in path:
        path.add(node.id)
        node = by_id.get(node.parent or "")
    return path


def parse_conversation(raw: Any, index: int) -> Conversation | str:
    """One conversation record, or the reason it cannot be read."""
    record = conversation_record(raw, index, ("uuid", "id"), "name", "chat_messages", list)
    if isinstance(record, str):
        return record
    conv_id, messages = record
    problems: list[str] = []
    turns: list[Segment] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            problems.append(f"message #{i} is not an object; skipped")
            continue
        turn = _segment(message, i)
        if turn.text:
            turns.append(turn)
        else:
            problems.append(f"message {turn.id!r} ({turn.speaker}) has no text; skipped")
    order = {id(t): i for i, t in enumerate(turns)}  # equal times: the question before its answer
    turns.sort(key=lambda t: (t.timestamp or "", t.role != "user", order[id(t)]))
    main = _main_path(turns, raw.get("current_leaf_message_uuid"))
    for turn in turns:
        turn.branch = "main" if turn.id in main else "alternate"
    turns.sort(key=lambda t: (t.branch != "main", t.timestamp or "", t.role != "user", order[id(t)]))
    created = iso_time(raw.get("created_at"))
    fill_timestamps(turns, created)
    properties = {"summary": raw["summary"]} if isinstance(raw.get("summary"), str) and raw["summary"] else {}
    title = str(raw.get("name") or "").strip()
    return Conversation(
        conv_id, title, turns, properties, created, [f"conversation {conv_id!r}: {p}" for p in problems]
    )


def parse_export(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    """Every conversation of a Claude export file as its own Document; the export's memories and
    projects files as notes."""
    name = PurePosixPath(rel).name.lower()
    if name == claude_side.MEMORIES:
        return claude_side.parse_memories(data, namespace, source, rel, modified)
    if name == claude_side.PROJECTS:
        return claude_side.parse_projects(data, namespace, source, rel, modified)
    return export_documents(data, namespace, source, rel, modified, FORMAT, parse_conversation)
