"""ChatGPT, Claude and JSONL readers: threads, branches, content types, order and ids."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemo.documents import Document
from mnemo.errors import SourceError
from mnemo.ingest.pipeline import chunk_rows
from mnemo.ingest.segments import chunk_segments
from mnemo.sources import chatgpt, claude, inbox, jsonl


def _node(node_id: str, parent: str | None, children: list[str], role: str | None = None, content: dict | None = None,
          t: float | None = None, **metadata: object) -> dict:
    message = None if role is None else {
        "id": node_id, "author": {"role": role, "name": "browser" if role == "tool" else None},
        "create_time": t, "content": content or {}, "metadata": metadata, "recipient": "all",
    }
    return {"id": node_id, "parent": parent, "children": children, "message": message}


def _text(*parts: object) -> dict:
    return {"content_type": "text", "parts": list(parts)}


BRANCHED = {
    "id": "conv-1", "title": "Choosing a bike", "create_time": 1767261600.0, "current_node": "a2",
    "mapping": {
        "root": _node("root", None, ["sys"]),
        "sys": _node("sys", "root", ["u1"], "system", _text(""), None),
        "u1": _node("u1", "sys", ["a1", "a1b"], "user", _text("Gravel or road bike for Lisbon hills?"), 1767261600.0),
        "a1": _node("a1", "u1", [], "assistant", _text("A road bike."), 1767261610.0, model_slug="gpt-4"),
        "a1b": _node("a1b", "u1", ["u2"], "assistant", _text("A gravel bike handles the cobbles."), 1767261650.0, model_slug="gpt-4"),
        "u2": _node("u2", "a1b", ["t1"], "user", {"content_type": "multimodal_text", "parts": [
            {"content_type": "image_asset_pointer", "asset_pointer": "file-service://x"}, "Like this one?"]}, 1767261700.0),
        "t1": _node("t1", "u2", ["c1"], "tool", {"content_type": "tether_quote", "title": "Bike shop", "url": "https://shop.example", "text": "Gravel 2x11"}, 1767261710.0),
        "c1": _node("c1", "t1", ["th"], "assistant", {"content_type": "code", "language": "python", "text": "print(29 * 2.2)"}, None),
        "th": _node("th", "c1", ["a2"], "assistant", {"content_type": "thoughts", "thoughts": [{"content": "secret"}]}, 1767261720.0),
        "a2": _node("a2", "th", [], "assistant", _text("Yes, that frame fits you."), 1767261730.0),
    },
}


def _parse(module, data: object, rel: str = "conversations.json") -> list[Document]:
    return module.parse_export(json.dumps(data).encode(), "ns", "src", rel, None)


def test_chatgpt_follows_current_node_and_keeps_other_branches() -> None:
    (doc,) = _parse(chatgpt, [BRANCHED])
    main = [s for s in doc.segments if s.branch == "main"]
    assert [s.id for s in main] == ["u1", "a1b", "u2", "t1", "c1", "a2"]
    assert [s.id for s in doc.segments if s.branch == "alternate"] == ["a1"]
    assert main[2].text == "Like this one?" and main[2].meta["not_text"] == ["image_asset_pointer"]
    assert main[3].speaker == "browser" and main[3].text.startswith("Bike shop https://shop.example")
    assert main[4].text == "```python\nprint(29 * 2.2)\n```" and main[4].timestamp == main[3].timestamp
    assert "secret" not in doc.body and "A road bike." not in doc.body  # reasoning dropped; alternates kept apart
    assert doc.title == "Choosing a bike" and doc.kind == "chat" and doc.created == "2026-01-01T10:00:00+00:00"
    assert doc.properties["models"] == ["gpt-4"] and doc.properties["alternate_turns"] == 1


def test_conversation_ids_not_paths_make_document_ids() -> None:
    (a,) = _parse(chatgpt, [BRANCHED], "export-2026-01.json")
    (b,) = _parse(chatgpt, [BRANCHED], "later/export-2026-02.json")
    assert a.id == b.id and a.id.startswith("doc_")
    other = dict(BRANCHED, id="conv-2")
    assert len({d.id for d in _parse(chatgpt, [BRANCHED, other])}) == 2


def test_claude_sorts_by_time_and_keeps_retries_as_alternates() -> None:
    conv = {
        "uuid": "c-1", "name": "Rust lifetimes", "created_at": "2026-02-01T09:00:00Z",
        "chat_messages": [
            {"uuid": "m4", "parent_message_uuid": "m3", "sender": "human", "text": "Thanks!", "created_at": "2026-02-01T09:10:00Z"},
            {"uuid": "m1", "parent_message_uuid": "00000000-0000-4000-8000-000000000000", "sender": "human",
             "text": "Why does this fail?", "created_at": "2026-02-01T09:00:00Z",
             "attachments": [{"file_name": "main.rs", "extracted_content": "fn main() {}"}]},
            {"uuid": "m2", "parent_message_uuid": "m1", "sender": "assistant", "created_at": "2026-02-01T09:01:00Z",
             "content": [{"type": "thinking", "thinking": "hidden"}, {"type": "text", "text": "First try."}]},
            {"uuid": "m3", "parent_message_uuid": "m1", "sender": "assistant", "created_at": "2026-02-01T09:05:00Z",
             "content": [{"type": "text", "text": "Second try."}, {"type": "tool_use", "name": "repl"}]},
        ],
    }
    (doc,) = _parse(claude, [conv])
    assert [(s.id, s.branch) for s in doc.segments] == [("m1", "main"), ("m3", "main"), ("m4", "main"), ("m2", "alternate")]
    assert "[attachment main.rs]\nfn main() {}" in doc.segments[0].text and doc.segments[0].role == "user"
    assert doc.segments[1].meta["not_text"] == ["tool_use"] and "hidden" not in doc.segments[3].text


def test_claude_old_style_messages_without_content_blocks() -> None:
    conv = {"uuid": "c-2", "name": "Cat names", "created_at": "2025-06-01T12:00:00Z", "chat_messages": [
        {"uuid": "o2", "sender": "assistant", "text": "Biscuit.", "created_at": "2025-06-01T12:01:00Z"},
        {"uuid": "o1", "sender": "human", "text": "A name for a cat?", "created_at": "2025-06-01T12:00:00Z"},
        {"uuid": "o3", "sender": "assistant", "text": "  ", "created_at": "2025-06-01T12:02:00Z"},
    ]}
    (doc,) = _parse(claude, [conv])
    assert [s.text for s in doc.segments] == ["A name for a cat?", "Biscuit."]
    assert doc.problems == ["conversation 'c-2': message 'o3' (assistant) has no text; skipped"]


def test_jsonl_groups_by_conversation_and_orders_by_time() -> None:
    lines = [
        {"conversation": "walk", "speaker": "Sam", "role": "user", "text": "Shall we walk to Belém?", "timestamp": "2026-03-01T10:05:00Z"},
        {"conversation": "walk", "speaker": "Dana", "text": "Yes, after lunch.", "timestamp": "2026-03-01T10:06:00Z"},
        {"conversation": "walk", "speaker": "Sam", "role": "user", "text": "Morning!", "timestamp": "2026-03-01T10:00:00Z"},
        {"conversation": "other", "speaker": "Sam", "text": "Separate chat.", "timestamp": 1772359200},
    ]
    data = ("\n".join(json.dumps(x) for x in lines) + "\nnot json\n" + json.dumps({"speaker": "x"}) + "\n").encode()
    docs = jsonl.parse_file(data, "ns", "src", "chats/log.jsonl", None)
    walk = next(d for d in docs if d.title == "walk")
    assert [s.text for s in walk.segments] == ["Morning!", "Shall we walk to Belém?", "Yes, after lunch."]
    assert [s.role for s in walk.segments] == ["user", "user", "dana"]
    assert docs[0].problems == ["line 5: invalid JSON (Expecting value); skipped", "line 6: message has no text; skipped"]


def test_inbox_recognizes_formats_by_content() -> None:
    chat = json.dumps([BRANCHED]).encode()
    assert inbox.parse_file(chat, "ns", "src", "drop.json", None)[0].properties["format"] == "chatgpt"
    with pytest.raises(SourceError, match="not a ChatGPT, Claude or other known chat export"):
        inbox.parse_file(b'{"hello": 1}', "ns", "src", "drop.json", None)
    with pytest.raises(SourceError, match="no locomo reader is installed"):
        inbox.parse_file(b'[{"conversation": {"speaker_a": "A"}}]', "ns", "src", "drop.json", None, others=lambda fmt: None)


def test_turn_chunks_carry_speaker_time_and_stay_within_their_branch() -> None:
    (doc,) = _parse(chatgpt, [BRANCHED])
    chunks = chunk_segments(doc, max_words=180)
    assert all(c.timestamp for c in chunks)
    first = chunks[0]
    assert first.metadata["speaker"] == "user" and first.metadata["turn_ids"][0] == "u1"
    assert first.timestamp == "2026-01-01T10:00:00+00:00"
    alternate = [c for c in chunks if c.metadata["branch"] == "alternate"]
    assert len(alternate) == 1 and alternate[0].prev_id is None and "a1" in alternate[0].metadata["turn_ids"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.text(st.characters(categories=["L", "N", "Zs"]), min_size=1, max_size=400).filter(str.strip)), min_size=1, max_size=12))
def test_every_turn_lands_in_chunks_once_in_order(turns: list[tuple[str, str]]) -> None:
    lines = [json.dumps({"conversation": "c", "role": r, "text": t, "timestamp": 1772359200 + i}) for i, (r, t) in enumerate(turns)]
    (doc,) = jsonl.parse_file("\n".join(lines).encode(), "ns", "src", "c.jsonl", None)
    chunks = chunk_segments(doc, max_words=40)
    ids = [i for c in chunks for i in dict.fromkeys(c.metadata["turn_ids"])]
    assert list(dict.fromkeys(ids)) == [s.id for s in doc.segments]
    assert len({c.id for c in chunks}) == len(chunks)
    words = " ".join(c.text for c in chunks).split()
    for segment in doc.segments:
        assert set(segment.text.split()) <= set(words)


def test_zip_exports_are_read_from_the_archive() -> None:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("conversations.json", json.dumps([BRANCHED]))
        archive.writestr("user.json", "{}")
        archive.writestr("chat.html", "<html></html>")
    (doc,) = inbox.parse_file(buffer.getvalue(), "ns", "src", "export.zip", None)
    assert doc.path == "export.zip!conversations.json" and doc.id == _parse(chatgpt, [BRANCHED])[0].id
    assert chatgpt.parse_export(buffer.getvalue(), "ns", "src", "export.zip", None)[0].id == doc.id
    with pytest.raises(SourceError, match="not a readable zip archive"):
        chatgpt.parse_export(b"PK\x03\x04broken", "ns", "src", "export.zip", None)


def test_a_turn_is_embedded_with_the_start_of_the_turn_before_it() -> None:
    (doc,) = _parse(chatgpt, [BRANCHED])
    chunks = chunk_segments(doc, max_words=180)
    rows = {r["id"]: r for r in chunk_rows(chunks)}
    first, second = chunks[0], chunks[1]
    assert rows[first.id]["embed_text"] == first.context_text
    assert rows[second.id]["embed_text"].startswith(second.context_text)
    assert rows[second.id]["embed_text"].endswith(f"(after {' '.join(first.text.split())})")
    long_turn = {"conversation": "c", "role": "user", "text": " ".join(f"w{i}" for i in range(100)), "timestamp": 1772359200}
    reply = {"conversation": "c", "role": "assistant", "text": "ok", "timestamp": 1772359201}
    (chat,) = jsonl.parse_file("\n".join(json.dumps(t) for t in (long_turn, reply)).encode(), "ns", "src", "c.jsonl", None)
    last = chunk_rows(chunk_segments(chat, max_words=180))[-1]["embed_text"]
    assert "w38" in last and "w60" not in last and last.endswith("...)")
