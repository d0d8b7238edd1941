"""Bad input: every broken file is reported by path and reason, the rest is ingested, the run succeeds.

The corpus lives in tests/data/bad_inputs (written for these tests); the 21 MB note and
the symlink loop are made at test time, in a private copy.
"""

import os
import shutil
from pathlib import Path

from mnemo.sources.scan import MAX_FILE_BYTES
from tests.support import REPO, make_workspace

BAD = REPO / "tests" / "data" / "bad_inputs"


def _problems(workspace, result) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in workspace.files().read_problems():
        found.setdefault(row["path"], []).append(row["reason"])
    assert workspace.metadata(result, "documents")["problems"] == len(found)  # files, each listed with every reason
    return found


def test_each_bad_file_is_reported_and_the_rest_ingested(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    shutil.copytree(BAD / "graph", graph)
    (graph / "pages" / "Huge note.md").write_bytes(b"- " + b"word " * ((MAX_FILE_BYTES // 5) + 10) + b"\n")
    os.symlink("Loop.md", graph / "pages" / "Loop.md")
    workspace = make_workspace(tmp_path, {"test": [
        {"kind": "logseq", "path": str(graph)},
        {"kind": "chatgpt", "path": str(BAD / "chats")},
    ]})
    result = workspace.ingest()
    problems = _problems(workspace, result)

    assert any("over the" in r and "limit" in r for r in problems["pages/Huge note.md"])
    assert any("symlink loop" in r for r in problems["pages/Loop.md"])
    assert any("invalid JSON at line" in r and "truncated" in r for r in problems["truncated_export.json"])
    odd = " | ".join(problems["odd_mappings.json"])
    assert "cycle through node" in odd
    assert "names parent 'deleted-node', which is missing" in odd
    assert "message 'u' (user) has no text" in odd
    assert any(":PROPERTIES: is never closed" in r for r in problems["pages/Unbalanced properties.md"])

    docs = {d.title: d for d in workspace.files().read_documents()}
    # Everything readable is there: both good pages, the journal, the good chat and the three odd ones.
    assert {"Porto", "Unbalanced properties", "2026-01-03", "Planning the Porto weekend", "A mapping with a cycle",
            "A message whose parent is gone", "A message with no text"} == set(docs)
    assert "The next block is still read." in [s.text for s in docs["Unbalanced properties"].segments]
    assert [t.text for t in docs["A message whose parent is gone"].segments] == [
        "What did I ask before?", "The earlier part of this chat was removed."]
    assert [t.speaker for t in docs["A message with no text"].segments] == ["assistant"]
    assert workspace.graph().counts()["Episode"] == 4
    assert _problems(workspace, workspace.ingest()) == problems  # a re-run reports the same problems
