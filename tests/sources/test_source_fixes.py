"""What real vaults and exports showed the sources: creation-date keys, Excalidraw drawings,
the files beside a Claude export, empty pages and the count line."""

import json
from pathlib import Path

import pytest

from mnemo.sources.obsidian import parse_note
from mnemo.sources.scan import EMPTY_FILE
from tests.support import make_workspace

DRAWING = """---
excalidraw-plugin: parsed
tags: [excalidraw]
---
==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==

# Excalidraw Data
## Text Elements
Launch plan for [[Heron]] ^a1B2c3

Ask Dana about the lifts ^x9y8z7

%%
## Drawing
```json
{"type": "excalidraw", "elements": [{"id": "a1B2c3", "x": 120.5, "y": -40, "versionNonce": 1822312}]}
```
%%
"""


@pytest.mark.parametrize("key", ["created", "created_at", "created-at", "date created", "Date Created", "creation date"])
def test_creation_date_keys_date_a_note(key: str) -> None:
    doc = parse_note(f"---\n{key}: 2021-03-04T10:00:00\n---\nText.\n", namespace="n", source="s", rel_path="A.md",
                     modified="2026-01-01T00:00:00+00:00")
    assert doc.created == "2021-03-04"


def test_an_excalidraw_drawing_is_indexed_by_its_text_only(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Drawings").mkdir(parents=True)
    (vault / "Drawings" / "Plan.excalidraw.md").write_text(DRAWING, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    texts = [c.text for c in workspace.files().read_chunks()]
    assert texts == ["Launch plan for [[Heron]]\n\nAsk Dana about the lifts"]


def test_claude_memories_and_projects_are_read_as_notes(tmp_path: Path) -> None:
    export = tmp_path / "claude"
    export.mkdir()
    (export / "memories.json").write_text(json.dumps([{
        "conversations_memory": "The user is training for a half marathon in May.",
        "project_memories": {"p-1": "Garden shed: the roof is corrugated steel."},
        "account_uuid": "acc-1",
    }]), encoding="utf-8")
    (export / "projects.json").write_text(json.dumps([{
        "uuid": "p-1", "name": "Garden shed", "description": "Build a shed before winter.",
        "prompt_template": "", "created_at": "2025-02-01T10:00:00Z",
        "docs": [{"uuid": "d-1", "filename": "materials.md", "content": "Timber frame, steel roof, concrete base."}],
    }]), encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "claude", "path": str(export)}]})
    result = workspace.ingest()
    docs = workspace.metadata(result, "documents")
    assert docs["documents"] == 2 and docs["problems"] == 0
    titles = {d.title: d for d in workspace.files().read_documents()}
    assert "half marathon" in titles["Claude memories"].body and "corrugated steel" in titles["Claude memories"].body
    assert "Timber frame" in titles["Garden shed"].body and titles["Garden shed"].created.startswith("2025-02-01")
    kinds = workspace.graph().query("MATCH (e:Entity {name: 'Garden shed'}) RETURN e.kind AS kind")
    assert kinds == [{"kind": "project"}]


def test_an_unknown_memories_layout_is_reported_once_for_the_file(tmp_path: Path) -> None:
    export = tmp_path / "claude"
    export.mkdir()
    (export / "memories.json").write_text(json.dumps([{"something": "else"}]), encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "claude", "path": str(export)}]})
    result = workspace.ingest()
    problems = json.loads((workspace.files().root / "problems.json").read_text(encoding="utf-8"))
    assert [p["path"] for p in problems] == ["memories.json"] and "layout not supported" in problems[0]["reason"]
    assert workspace.metadata(result, "documents")["documents"] == 0


def test_empty_pages_are_counted_per_file_and_listed_until_they_change(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    (graph / "pages").mkdir(parents=True)
    (graph / "pages" / "Topic.md").write_text("- A block about [[Other]]\n", encoding="utf-8")
    for name in ("a", "b", "c"):
        (graph / "pages" / f"{name}.md").write_bytes(b"")
    (graph / "README.md").write_text("Not a page.\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    result = workspace.ingest()
    docs = workspace.metadata(result, "documents")
    assert (docs["documents"], docs["new"], docs["ignored"], docs["problems"]) == (1, 1, 4, 3)  # 3 empty pages, a README
    logged = [e for e in workspace.instance.all_logs(result.run_id) if "empty files" in (e.user_message or "")]
    assert len(logged) == 1 and logged[0].level == 30  # one WARNING naming all three
    assert logged[0].user_message.endswith("3 empty files, nothing to ingest: pages/a.md, pages/b.md, pages/c.md")
    listed = [(p["path"], p["reason"]) for p in workspace.files().read_problems()]
    assert listed == [(f"pages/{n}.md", EMPTY_FILE) for n in "abc"]
    again = workspace.ingest()
    assert workspace.metadata(again, "documents")["problems"] == 3  # unchanged: still listed
    assert [p["path"] for p in workspace.files().read_problems()] == [p for p, _ in listed]
    (graph / "pages" / "a.md").write_text("- Now a page\n", encoding="utf-8")
    third = workspace.ingest()
    assert workspace.metadata(third, "documents")["problems"] == 2  # a.md changed: no longer a problem
    assert [p["path"] for p in workspace.files().read_problems()] == ["pages/b.md", "pages/c.md"]


def test_an_unchanged_vault_counts_every_document_unchanged(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    (graph / "pages").mkdir(parents=True)
    for name in ("Topic", "Other", "Third"):
        (graph / "pages" / f"{name}.md").write_text(f"- A block about {name}\n", encoding="utf-8")
    (graph / "pages" / "empty.md").write_bytes(b"")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    workspace.ingest()
    docs = workspace.metadata(workspace.ingest(), "documents")
    assert docs["documents"] == docs["unchanged"] == 3 and docs["problems"] == 1
