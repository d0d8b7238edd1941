"""Titled memories: save upserts by slug within a scope (the old text kept in history, its passage
no longer recalled), read / exists / list / append / forget by title, the title rules, expiry,
and two processes saving the same title at once."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mnemo.errors import MnemoError
from mnemo.memories.titled import title_slug
from mnemo.sources.memory_files import memory_doc_id
from mnemo.stores.tombstones import Tombstones
from tests.support import Workspace
from tests.support import steady_client as client

OSLO = "Zephyrine moves to Oslo in March; her new flat is near the harbour."
BERGEN = "Zephyrine moves to Bergen in April instead; the Oslo flat fell through."
QUESTION = "Where is Zephyrine moving?"


def recalled(workspace: Workspace, **scope: str) -> list[str]:
    return [i.text for i in client(workspace).recall(QUESTION, **scope).items]


def rows_of(workspace: Workspace, memory_id: str) -> list[str]:
    table = workspace.vectors().table("chunks")
    assert table is not None
    found = table.search().where(f"doc_id = '{memory_doc_id('test', memory_id)}'").select(["text"]).limit(None)
    return [r["text"] for r in found.to_list()]


def test_save_again_replaces_the_text_and_keeps_the_old_one_in_history(workspace: Workspace) -> None:
    c = client(workspace)
    first = c.save("Zephyrine's move", OSLO)
    assert first.status == "recallable" and first.slug == "zephyrine-s-move" and OSLO in recalled(workspace)
    second = c.save("zephyrine's MOVE", BERGEN)  # the same slug: the same memory
    assert second.id == first.id and second.title == "zephyrine's MOVE"
    assert [h["text"] for h in second.history] == [OSLO]
    texts = recalled(workspace)
    assert BERGEN in texts and OSLO not in texts  # the replaced passage is no longer recalled
    assert rows_of(workspace, first.id) == [BERGEN]
    assert c.read("Zephyrine's move").text == BERGEN and c.exists("Zephyrine's move")
    assert not c.exists("Zephyrine's move", "project:relocation") and not c.exists("Someone else's move")
    with pytest.raises(MnemoError, match="no memory titled 'Someone else' in scope 'global'"):
        c.read("Someone else")
    workspace.ingest()  # the ingest takes the titled memory over: still one passage, the current text
    assert rows_of(workspace, first.id) == [BERGEN] and c.memory(first.id).status == "ingested"
    assert c.read("Zephyrine's move").history[0]["text"] == OSLO


def test_a_title_is_unique_within_its_scope_and_list_shows_titled_and_untitled(workspace: Workspace) -> None:
    c = client(workspace)
    global_one = c.save("Move", OSLO)
    project_one = c.save("Move", BERGEN, scope="project:relocation")
    untitled = c.remember("Zephyrine asked for help carrying boxes.", scope="project:relocation")
    assert global_one.id != project_one.id
    assert c.read("Move").text == OSLO and c.read("Move", "project:relocation").text == BERGEN
    assert [m.id for m in c.list("project:relocation")] == [project_one.id, untitled.id]
    assert [m.title for m in c.list("project:relocation")] == ["Move", None]
    assert BERGEN not in recalled(workspace) and BERGEN in recalled(workspace, project="relocation")
    assert [m.id for m in c.get_all("project:relocation")] == [project_one.id, untitled.id]
    assert c.get_memory(untitled.id, "project:relocation").text == untitled.text
    with pytest.raises(MnemoError, match="no memory .* in room 'global'"):
        c.get_memory(untitled.id, "global")
    cleared = c.clear("project:relocation")
    assert {i["memory"] for i in cleared.items} == {project_one.id, untitled.id}
    assert c.list("project:relocation") == [] and c.read("Move").text == OSLO


@pytest.mark.parametrize(("title", "rule"), [
    ("", "it is empty"),
    ("   ", "it is empty"),
    ("-draft", "starts with a non-word character ('-')"),
    ("draft?", "ends with a non-word character ('?')"),
    ("Move  plans", "run of several non-word characters ('  ')"),
    ("Move, plans", "run of several non-word characters (', ')"),
    ("x" * 201, "longer than 200 characters"),
])
def test_a_title_that_breaks_a_rule_is_refused_naming_the_rule(workspace: Workspace, title: str, rule: str) -> None:
    with pytest.raises(MnemoError, match="invalid title") as raised:
        client(workspace).save(title, OSLO)
    assert rule in str(raised.value)
    inbox = workspace.files().root / "inbox"
    assert not inbox.exists() or not list(inbox.glob("mem_*.json"))


@pytest.mark.parametrize(("title", "slug"), [
    ("Trip to Oslo", "trip-to-oslo"), ("Zürich notes", "zürich-notes"), ("v2.1 plan", "v2-1-plan"),
    ("snake_case_title", "snake_case_title"), ("X", "x"),
])
def test_a_slug_is_derived_from_the_title(title: str, slug: str) -> None:
    assert title_slug(title) == slug


def test_append_adds_to_the_text_and_keeps_the_text_before_in_history(workspace: Workspace) -> None:
    c = client(workspace)
    c.save("Packing list", "Boxes for the books.", scope="session:s1")
    appended = c.append("Packing list", "Tape and a marker for the kitchen boxes.", scope="session:s1")
    assert appended.text == "Boxes for the books.\n\nTape and a marker for the kitchen boxes."
    assert [h["text"] for h in appended.history] == ["Boxes for the books."]
    found = client(workspace).recall("tape and a marker", session="s1").items
    assert found[0].text == appended.text
    with pytest.raises(MnemoError, match="no memory titled 'Packing list' in scope 'global'"):
        c.append("Packing list", "more")
    with pytest.raises(MnemoError, match="nothing to append"):
        c.append("Packing list", "  ", scope="session:s1")


def test_forget_by_title_tombstones_it_and_the_title_can_be_saved_again(workspace: Workspace) -> None:
    c = client(workspace)
    old = c.save("Move", OSLO)
    report = c.forget(title="Move")
    assert [i["memory"] for i in report.items] == [old.id] and not c.exists("Move")
    assert memory_doc_id("test", old.id) in Tombstones.load(workspace.files().root).docs
    assert OSLO not in recalled(workspace)
    with pytest.raises(MnemoError, match="no memory titled 'Move'"):
        c.forget(title="Move")
    new = c.save("Move", BERGEN)  # a new memory, which the old one's tombstone does not hide
    assert new.id != old.id and new.history == [] and BERGEN in recalled(workspace)
    workspace.ingest()
    assert BERGEN in recalled(workspace) and OSLO not in recalled(workspace)


def test_an_expired_titled_memory_is_not_read_recalled_or_brought_back(workspace: Workspace) -> None:
    c = client(workspace)
    old = c.save("Gate code", "The gate code is 4512.", ttl=1)
    time.sleep(1.2)
    assert not c.exists("Gate code") and "The gate code is 4512." not in [
        i.text for i in c.recall("gate code").items]
    workspace.ingest()
    assert "The gate code is 4512." not in [i.text for i in c.recall("gate code").items]
    assert [m.status for m in c.list()] == ["expired"]
    fresh = c.save("Gate code", "The gate code is 7781.")  # replaces the expired one: no history of it
    assert fresh.history == [] and fresh.expires_at is None
    assert c.forget(expired=True).items == []  # the saved memory is not expired any more
    assert c.recall("gate code").items[0].text == "The gate code is 7781."
    assert fresh.id == old.id and len(c.list()) == 1


SAVE = """
import sys
from mnemo.client import MemoryClient
c = MemoryClient("test", sys.argv[1])
for n in range(int(sys.argv[3])):
    c.save("Shared plan", f"Plan version {n} from writer {sys.argv[2]}.")
print("done", flush=True)
"""


def test_two_processes_saving_one_title_end_with_one_memory_and_every_text(workspace: Workspace) -> None:
    """The later save wins; every earlier text is in the history, in the order they were saved."""
    saves = 8
    writers = [subprocess.Popen([sys.executable, "-c", SAVE, str(workspace.config_path), w, str(saves)],
                                stdout=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
               for w in ("A", "B")]
    assert [p.communicate(timeout=300)[0].strip() for p in writers] == ["done", "done"]
    files = list((workspace.files().root / "inbox").glob("mem_*.json"))
    assert len(files) == 1
    memory = json.loads(files[0].read_text(encoding="utf-8"))
    texts = [h["text"] for h in memory["history"]] + [memory["text"]]
    assert sorted(texts) == sorted(f"Plan version {n} from writer {w}." for w in "AB" for n in range(saves))
    for w in "AB":  # each writer's saves appear in its own order
        mine = [t for t in texts if t.endswith(f"writer {w}.")]
        assert mine == [f"Plan version {n} from writer {w}." for n in range(saves)]
    assert rows_of(workspace, Path(files[0]).stem) == [memory["text"]]  # the chunks table holds the winner only


def test_sleep_mode_purges_an_expired_titled_memory_and_a_reingest_does_not_bring_it_back(
        workspace: Workspace) -> None:
    import datetime as dt

    from mnemo_dagster.definitions import build_defs
    from mnemo_dagster.resources import default_resources

    workspace.ingest()
    c = client(workspace)
    gone = c.save("Gate code", "The gate code is 4512.", ttl=3600)
    kept = c.save("Desk", "My desk is 4B on the second floor.", ttl=3 * 86400)
    later = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).isoformat()
    defs = build_defs(default_resources(str(workspace.config_path)))
    result = defs.resolve_job_def("sleep_mode_job").execute_in_process(
        partition_key="test", instance=workspace.instance, tags={"mnemo/now": later})
    assert result.success
    assert [m.id for m in c.list()] == [kept.id]
    assert memory_doc_id("test", gone.id) in Tombstones.load(workspace.files().root).docs
    assert rows_of(workspace, gone.id) == [] and rows_of(workspace, kept.id) == ["My desk is 4B on the second floor."]
    workspace.ingest()
    assert rows_of(workspace, gone.id) == [] and not c.exists("Gate code")


def test_a_sync_from_documents_scanned_before_a_save_keeps_the_new_text(tmp_path: Path, small_vault: Path) -> None:
    """An ingest that scanned a titled memory, then saw it saved again before its vector sync,
    writes the new text (asked under the table's lock), not the one it scanned."""
    from mnemo.ingest import pipeline
    from mnemo.ingest.memory_rows import pending_groups
    from mnemo.stores.embedders import build_embedder
    from tests.support import make_workspace

    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(small_vault)}]})
    memory = client(workspace).save("Zephyrine's move", OSLO)
    workspace.ingest()
    files, vectors = workspace.files(), workspace.vectors()
    chunks, _ = pipeline.build_chunks(files, 180)  # the ingest has read the memory with its first text ...
    client(workspace).save("Zephyrine's move", BERGEN)  # ... when it is saved again
    stale = pipeline.chunk_groups(chunks)
    vectors.sync_groups("chunks", stale, build_embedder(workspace.config.embedder),
                        late=pending_groups(files.root, "test", 180))
    assert rows_of(workspace, memory.id) == [BERGEN]
    assert OSLO not in recalled(workspace)
