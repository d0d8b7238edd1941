"""ChatGPT data exports (`conversations.json`): one Document per conversation.

The `mapping` is a tree of nodes with `parent` and `children`. The visible thread is the
path from `current_node` back to the root; every other message (an edited question, a
regenerated answer) is kept as an alternate turn. Text, code, browsing quotes and tool
output are kept as text; images, hidden system messages and model reasoning are only
noted in the turn's metadata.
"""

from typing import Any

from mnemo.documents import Document, Segment
from mnemo.sources.chats import (
    Conversation,
    conversation_record,
    export_documents,
    fill_timestamps,
    iso_time,
)

SUFFIXES = (".json", ".zip")
FORMAT = "chatgpt"
_SKIPPED_TYPES = {"thoughts", "reasoning_recap", "user_editable_context", "model_editable_context"}
_SPOKEN_ROLES = {"user", "assistant"}


def _part_text(part: Any, notes: list[str]) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, dict):
        kind = str(part.get("content_type") or "object")
        if isinstance(part.get("text"), str):
            return part["text"]
        notes.append(kind)
    return ""


def message_text(content: Any) -> tuple[str, list[str]]:
    """The readable text of a message's content, and the kinds of content that were not text."""
    if not isinstance(content, dict):
        return "", ["no content"]
    kind = str(content.get("content_type") or "text")
    notes: list[str] = []
    if kind in _SKIPPED_TYPES:
        return "", [kind]
    if isinstance(content.get("parts"), list):
        text = "\n".join(t for p in content["parts"] if (t := _part_text(p, notes)))
    elif kind == "tether_browsing_display":
        text = str(content.get("result") or content.get("summary") or "")
    elif kind == "tether_quote":
        head = " ".join(str(content.get(k) or "") for k in ("title", "url")).strip()
        text = f"{head}\n{content.get('text') or ''}".strip()
    else:
        text = str(content.get("text") or "")
    if kind == "code" and text:
        text = f"```{content.get('language') or ''}\n{text}\n```"
    return text.strip(), notes


def _dict_at(record: dict[str, Any], key: str) -> dict[str, Any]:
    """The record's value at `key` when it is an object, else an empty one."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def _speaker(message: dict[str, Any]) -> tuple[str, str]:
    author = _dict_at(message, "author")
    role = str(author.get("role") or "unknown")
    name = author.get("name")
    return role, (str(name) if role == "tool" and name else role)


def thread(mapping: dict[str, Any], current: str | None, problems: list[str]) -> list[str]:
    """Node ids from the root to `current`; a cycle or a missing parent ends the walk, reported."""
    if not current or current not in mapping:
        leaves = [k for k, v in mapping.items() if isinstance(v, dict) and not v.get("children")]
        if current:
            problems.append(f"current_node {current!r} is not in the mapping; using the last leaf")
        current = max(leaves, key=lambda k: (_created(mapping[k]) or 0, k)) if leaves else None
    path: list[str] = []
    seen: set[str] = set()
    node_id = current
    while node_id is not None:
        if node_id in seen:
            problems.append(f"the mapping has a cycle through node {node_id!r}; the thread stops there")
            break
        node = mapping.get(node_id)
        if not isinstance(node, dict):
            child = repr(path[-1]) if path else "current_node"
            problems.append(f"node {child} names parent {node_id!r}, which is missing; the thread starts after it")
            break
        seen.add(node_id)
        path.append(node_id)
        node_id = node.get("parent")
    return path[::-1]


def _created(node: dict[str, Any]) -> float | None:
    message = node.get("message")
    value = message.get("create_time") if isinstance(message, dict) else None
    return value if isinstance(value, (int, float)) else None


def _turn(node_id: str, node: dict[str, Any], branch: str, problems: list[str]) -> Segment | None:
    message = node.get("message")
    if not isinstance(message, dict):
        return None
    metadata = _dict_at(message, "metadata")
    if metadata.get("is_visually_hidden_from_conversation"):
        return None
    role, speaker = _speaker(message)
    text, notes = message_text(message.get("content"))
    if not text:
        if role in _SPOKEN_ROLES and not notes:
            problems.append(f"message {message.get('id') or node_id!r} ({role}) has no text; skipped")
        return None
    meta: dict[str, Any] = {"message_id": str(message.get("id") or node_id)}
    content = _dict_at(message, "content")
    meta["content_type"] = str(content.get("content_type") or "text")
    if notes:
        meta["not_text"] = sorted(set(notes))
    if metadata.get("model_slug"):
        meta["model"] = str(metadata["model_slug"])
    if message.get("recipient") not in (None, "all"):
        meta["recipient"] = str(message["recipient"])
    if metadata.get("attachments"):
        meta["attachments"] = [str(a.get("name") or "") for a in metadata["attachments"] if isinstance(a, dict)]
    parent = node.get("parent")
    return Segment(
        id=str(message.get("id") or node_id), text=text, speaker=speaker, role=role,
        timestamp=iso_time(message.get("create_time")), parent=str(parent) if parent else None,
        branch=branch, meta=meta,
    )


def parse_conversation(raw: Any, index: int) -> Conversation | str:
    """One conversation record, or the reason it cannot be read."""
    record = conversation_record(raw, index, ("id", "conversation_id"), "title", "mapping", dict)
    if isinstance(record, str):
        return record
    conv_id, mapping = record
    problems: list[str] = []
    main = thread(mapping, raw.get("current_node"), problems)
    on_main = set(main)
    turns = [t for node_id in main if (t := _turn(node_id, mapping[node_id], "main", problems))]
    others = sorted((k for k in mapping if k not in on_main and isinstance(mapping[k], dict)),
                    key=lambda k: (_created(mapping[k]) or 0, k))
    turns += [t for node_id in others if (t := _turn(node_id, mapping[node_id], "alternate", problems))]
    created = iso_time(raw.get("create_time"))
    fill_timestamps(turns, created)
    models = sorted({t.meta["model"] for t in turns if "model" in t.meta})
    properties: dict[str, Any] = {"models": models} if models else {}
    title = str(raw.get("title") or "").strip()
    return Conversation(
        conv_id, title, turns, properties, created, [f"conversation {conv_id!r}: {p}" for p in problems]
    )


def parse_export(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    """Every conversation of a ChatGPT export file as its own Document."""
    return export_documents(data, namespace, source, rel, modified, FORMAT, parse_conversation)
