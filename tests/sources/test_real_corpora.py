"""The readers on real data in ../shared/corpora (skipped when absent).

Every expected number below was counted by hand, independently of mnemo's readers:
shell `ls`/`grep` over the Logseq graph, and a few lines of plain `json` walking the
exports (commands quoted next to each number).
"""

import re
from collections import Counter
from pathlib import Path

from mnemo.config import SourceConfig
from mnemo.ingest.segments import block_index, chunk_segments
from mnemo.sources.scan import scan_namespace
from tests.support import corpus, make_workspace

_REF = re.compile(r"\(\(([0-9a-f-]{36})\)\)")


def _scan(kind: str, path: Path):  # noqa: ANN202 - ScanResult
    return scan_namespace("real", (SourceConfig(kind=kind, path=path),), [], [])


def test_logseq_docs_graph() -> None:
    root = corpus("logseq-docs")
    result = _scan("logseq", root)
    docs = result.documents
    # ls pages/*.md | wc -l -> 238; ls journals/*.md | wc -l -> 75; ls pages/*.org -> 4; ls journals/*.org -> 16
    assert len(docs) == 238 + 75 + 20
    assert Counter(d.kind for d in docs) == {"note": 238 + 4, "journal": 75 + 16}
    assert not [p for p in result.problems if p.path.endswith(".org")]
    # journals are named yyyy_MM_dd, 2020-05-14 .. 2021-07-19 (the .md ones start 2020-09-14, the .org ones before)
    days = sorted(d.day for d in docs if d.day)
    assert len(set(days)) == 91 and days[0] == "2020-05-14" and days[-1] == "2021-07-19"
    docs = [d for d in docs if d.path.endswith(".md")]  # the counts below are the Markdown pages'
    # grep -liE '^alias::' pages/*.md journals/*.md | wc -l -> 62 (keys are case-insensitive: llcc.md has `Alias::`)
    assert sum(1 for d in docs if "alias" in d.properties) == 62
    # ls pages | grep '___' | grep -c '\.md$' -> 75 namespaced pages
    namespaced = [d for d in docs if "___" in d.path]
    assert len(namespaced) == 75 and all("/" in d.title or "/" in " ".join(d.aliases) for d in namespaced)
    # cat pages/*.md journals/*.md | grep -iE '^\s*-?\s*id::' -> 134 distinct uuids (130 indented under a
    # block's first line, 4 opening a bullet); one of them is the Changelog page's own id
    assert sum(1 for d in docs for s in d.segments if not s.id.startswith("block-")) == 133
    assert next(d for d in docs if d.path == "pages/Changelog.md").properties["id"] == "692d8283-7f1d-44cf-81b0-bb25c469a64e"
    # org-style `#+BEGIN_NOTE` lines (grep -c '#+BEGIN_' -> many) are not tags; #[[Org Mode]] is one
    tags = {t for d in docs for t in d.tags}
    assert "Org Mode" in tags and "docs" in tags and all(t[0].isalnum() for t in tags)


def test_logseq_docs_block_references_resolve() -> None:
    docs = _scan("logseq", corpus("logseq-docs")).documents
    blocks = block_index(docs)
    # grep -oE '\(\([0-9a-f-]{36}\)\)' over the .md files: 64 references to 52 distinct uuids,
    # 41 of which are some block's id:: (comm -12 with the 134 ids above). One of the 64 (uuid
    # 123e4567-…) is an example in backticks in the Block Reference page's description:: property.
    refs = [m for d in docs if d.path.endswith(".md") for s in d.segments for m in _REF.findall(s.text)]
    # 41 resolve to a Markdown block's id::, 9 more to the `:id:` of a block of an Org page
    assert len(refs) == 63 and len(set(refs)) == 51 and len(set(refs) & set(blocks)) == 50
    left = {m for d in docs if d.path.endswith(".md") for c in chunk_segments(d, 180, blocks) for m in _REF.findall(c.text)}
    assert left == set(refs) - set(blocks)  # only the reference to a block outside the graph stays raw


def test_chatgpt_real_export() -> None:
    result = _scan("chatgpt", corpus("chat-exports", "chatgpt", "pkuppens-my_chat_gpt"))
    # json: len(conversations) -> 192; user.json, message_feedback.json, model_comparisons.json are side files
    assert len(result.documents) == 192 and {e.path for e in result.manifest} >= {"conversations.json", "user.json"}
    turns = [s for d in result.documents for s in d.segments]
    # roles over all mapping messages: user 645, assistant 686, tool 37, system 192 (all empty);
    # one assistant message has no text (and is reported); 8 texts are off the current_node path.
    assert len(turns) == 645 + 686 + 37 - 1
    assert Counter(t.role for t in turns) == {"user": 645, "assistant": 685, "tool": 37}
    assert sum(1 for t in turns if t.branch == "alternate") == 8
    assert [p.reason for p in result.problems if "has no text" in p.reason] and len(result.problems) == 1
    assert min(d.created for d in result.documents).startswith("2023-03-28")
    assert max(d.created for d in result.documents).startswith("2023-06-09")
    assert all(t.timestamp for t in turns)  # 2 messages have create_time null: they take the previous turn's


def test_chatgpt_code_interpreter_and_synthetic_exports() -> None:
    (doc,) = _scan("chatgpt", corpus("chat-exports", "chatgpt", "realazthat-chatgpt2graph")).documents
    # 45 nodes: 1 empty root, 2 hidden system messages, then 12 assistant text, 11 code, 11 execution_output, 8 user
    assert Counter(s.meta["content_type"] for s in doc.segments) == {"text": 20, "code": 11, "execution_output": 11}
    synthetic = _scan("chatgpt", corpus("chat-exports", "chatgpt", "synthetic"))
    # cl0ver012: 4 records, one without mapping and one without any id; mitkury: 1 conversation, msg-3 branches
    assert len(synthetic.documents) == 3
    assert sorted(p.reason.split(" ", 2)[-1] for p in synthetic.problems) == ["('No id') has no id; skipped", "has no mapping; skipped"]
    assert sum(1 for d in synthetic.documents for s in d.segments if s.branch == "alternate") == 2


def test_claude_real_and_synthetic_exports() -> None:
    (doc,) = _scan("claude", corpus("chat-exports", "claude", "simonw-claude-to-sqlite", "artifacts.json")).documents
    # 20 chat_messages, 10 human and 10 assistant, not in created_at order in the file; each
    # question and its answer share one created_at (first pair: 2024-10-17T03:28:55.541307Z)
    assert [s.role for s in doc.segments] == ["user", "assistant"] * 10
    stamps = [s.timestamp for s in doc.segments]
    assert stamps == sorted(stamps) and stamps[0] == "2024-10-17T03:28:55+00:00"
    synthetic = _scan("claude", corpus("chat-exports", "claude", "synthetic"))
    # 3 records: one branched by parent_message_uuid (m2 retried as m3), one old style with a
    # whitespace-only message, one without chat_messages
    assert [d.title for d in synthetic.documents] == ["Old style export", "Rust lifetimes"]
    assert [s.id for d in synthetic.documents for s in d.segments if s.branch == "alternate"] == ["m2"]
    assert len(synthetic.problems) == 2


def test_all_chat_exports_ingest_into_one_graph(tmp_path: Path) -> None:
    exports = corpus("chat-exports")
    workspace = make_workspace(tmp_path, {"test": [
        {"kind": "chatgpt", "path": str(exports / "chatgpt")}, {"kind": "claude", "path": str(exports / "claude")},
    ]})
    first = workspace.ingest()
    # 192 + 1 + 2 + 1 ChatGPT conversations, 1 + 1 + 2 Claude conversations (counted above)
    assert workspace.metadata(first, "documents")["documents"] == 200
    counts = workspace.graph().counts()
    assert counts["Episode"] == 200 and counts["NEXT"] > 0
    assert workspace.graph().query("MATCH (c:Chunk) WHERE c.timestamp = '' RETURN count(c) AS n") == [{"n": 0}]
    speakers = workspace.graph().query("MATCH (p:Entity)-[:SPOKE_IN]->(:Episode) RETURN DISTINCT p.id AS id ORDER BY id")
    assert [s["id"] for s in speakers] == ["artifact_chatgpt", "artifact_claude", "person_me"]
