"""A chat-export inbox folder: drop any export in it and its format is recognized by content.

`.json`: a ChatGPT export (conversations with a `mapping`), a Claude export (with
`chat_messages`), a `.zip` export archive holding such a `conversations.json`, or any other
format registered in the scanner's PARSERS that claims it (for example LoCoMo files); `.jsonl`:
generic JSONL chats; `.md`: a Markdown note.
"""

from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from mnemo.documents import Document
from mnemo.errors import SourceError
from mnemo.sources import chatgpt, claude, jsonl, obsidian
from mnemo.sources.chats import (
    SIDE_FILES,
    conversations_to_documents,
    decode_text,
    load_json,
    zip_members,
)

SUFFIXES = (".json", ".jsonl", ".md", ".zip")


def json_format(loaded: Any) -> str | None:
    """`chatgpt`, `claude`, `locomo` or None, from the first record's keys."""
    first = loaded[0] if isinstance(loaded, list) and loaded else loaded
    if not isinstance(first, dict):
        return None
    if "mapping" in first:
        return "chatgpt"
    if "chat_messages" in first:
        return "claude"
    conversation = first.get("conversation")
    if isinstance(conversation, dict) and "speaker_a" in conversation:
        return "locomo"
    return None


def parse_file(
    data: bytes, namespace: str, source: str, rel: str, modified: str | None,
    others: Callable[[str], Callable[..., list[Document]] | None] | None = None,
) -> list[Document]:
    """Documents of one dropped file, whatever its recognized format."""
    name = PurePosixPath(rel).name.lower()
    if name.endswith(".jsonl"):
        return jsonl.parse_file(data, namespace, source, rel, modified)
    if name.endswith(".md"):
        text = decode_text(data, rel)
        return [obsidian.parse_note(text, namespace=namespace, source=source, rel_path=rel, modified=modified)]
    if name in SIDE_FILES:
        return []
    if name.endswith(".zip"):
        members = zip_members(data, rel)
        if not members:
            raise SourceError(rel, "the archive holds no conversations.json")
        return [d for member, raw in members for d in parse_file(raw, namespace, source, member, modified, others)]
    loaded = load_json(data, rel)
    fmt = json_format(loaded)
    if fmt == "chatgpt":
        return conversations_to_documents(loaded, namespace, source, rel, modified, fmt, chatgpt.parse_conversation)
    if fmt == "claude":
        return conversations_to_documents(loaded, namespace, source, rel, modified, fmt, claude.parse_conversation)
    parser = others(fmt) if fmt and others else None
    if parser is not None:
        return parser(data, namespace, source, rel, modified)
    what = (
        f"a {fmt} file, but no {fmt} reader is installed" if fmt else "not a ChatGPT, Claude or other known chat export"
    )
    raise SourceError(rel, what)
