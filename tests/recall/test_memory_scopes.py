"""Memory scopes: a project's or a session's memories are recalled only by a caller that names
that project or session; global memories and notes always; a scope can be listed and cleared."""

import json

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from mnemo.recall.settings import RecallSettings
from mnemo.sources.memory_files import memory_doc_id
from tests.support import Workspace
from tests.support import steady_client as client

HERON = "The Heron deploy key rotates every Friday at noon."
QUESTION = "When does the deploy key rotate?"


def texts(workspace: Workspace, **scope: str) -> list[str]:
    return [i.text for i in client(workspace).recall(QUESTION, **scope).items]


def test_scoped_memories_are_recalled_only_in_their_scope(workspace: Workspace) -> None:
    c = client(workspace)
    project = c.remember(HERON, scope="project:heron")
    session = c.remember("In this chat the deploy key rotates on Monday instead.", scope="session:abc")
    c.remember("Every deploy key rotation is logged in the ops channel.")
    assert HERON not in texts(workspace) and HERON not in texts(workspace, project="tidepool")
    assert HERON in texts(workspace, project="heron")
    assert session.text not in texts(workspace, project="heron")
    assert session.text in texts(workspace, session="abc")
    assert "Every deploy key rotation is logged in the ops channel." in texts(workspace)
    item = next(i for i in c.recall(QUESTION, project="heron").items if i.text == HERON)
    assert item.metadata["scope"] == "project:heron"
    workspace.ingest()  # the ingest keeps the scope on the passages it takes over
    assert HERON not in texts(workspace) and HERON in texts(workspace, project="heron")
    assert [m.id for m in c.memories("project:heron")] == [project.id]


def test_a_scope_is_cleared_through_the_cli(workspace: Workspace) -> None:
    c = client(workspace)
    c.remember(HERON, scope="project:heron")
    kept = c.remember("The Tidepool deploy key never rotates.", scope="project:tidepool")
    runner = CliRunner()
    args = ["-n", "test", "--config", str(workspace.config_path)]
    found = runner.invoke(app, ["recall", QUESTION, "--project", "heron", "--json", *args])
    assert found.exit_code == 0 and HERON in [i["text"] for i in json.loads(found.output)["items"]]
    out = runner.invoke(app, ["forget", "--scope", "project:heron", "--json", *args])
    assert out.exit_code == 0, out.output
    assert [i["text"] for i in json.loads(out.output)["items"]] == [HERON]
    assert HERON not in texts(workspace, project="heron")
    assert [m.id for m in client(workspace).memories()] == [kept.id]


@pytest.mark.parametrize("scope", ["project:", "team:x", "session:a b", "Global", "project:../x"])
def test_a_bad_scope_is_refused_and_nothing_is_written(workspace: Workspace, scope: str) -> None:
    with pytest.raises(MnemoError, match="invalid scope"):
        client(workspace).remember(HERON, scope=scope)
    assert not (workspace.files().root / "inbox").exists() or not list((workspace.files().root / "inbox").iterdir())


def test_a_scoped_memory_is_not_drawn_as_a_random_salient_item(workspace: Workspace) -> None:
    c = client(workspace)
    c.remember("Every deploy key rotation is logged in the ops channel.")
    scoped = c.remember(HERON, scope="project:heron")
    table = c.vectors.table("chunks")
    row = table.search().where(f"doc_id = '{memory_doc_id('test', scoped.id)}'").select(["id"]).to_list()[0]
    (c.files.root / "salience.json").write_text(json.dumps({row["id"]: 1.0}))
    drawn = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.5))
    assert HERON not in [i.text for i in drawn.recall("ops channel logging", k=2).items]
    assert HERON in [i.text for i in drawn.recall("ops channel logging", k=2, project="heron").items]
