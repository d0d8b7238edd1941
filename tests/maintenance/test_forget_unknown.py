"""Forgetting an entity memory does not hold is an error on every surface (the client, the CLI;
HTTP and MCP in their own tests), and writes no tombstone: a later note for it becomes an entity."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from tests.support import Workspace

VICTOR = "---\ntype: person\n---\n# Victor Stone\n\nClimbing partner since the Sintra trip.\n"


def _tombstones(workspace: Workspace) -> bytes | None:
    path = workspace.files().root / "tombstones.json"
    return path.read_bytes() if path.exists() else None


def test_unknown_entity_is_an_error_and_a_later_note_for_it_becomes_an_entity(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    before = _tombstones(workspace)
    client = MemoryClient("test", workspace.config_path)
    for call in (lambda: client.forget(entity="person_id:victor_stone"),
                 lambda: client.forget(entity="person_id:victor_stone", properties=["role"])):
        with pytest.raises(MnemoError, match="no entity 'person_id:victor_stone'"):
            call()
    result = CliRunner().invoke(app, ["forget", "--entity", "person_id:victor_stone", "-n", "test",
                                      "--config", str(workspace.config_path)])
    assert result.exit_code != 0 and "no entity 'person_id:victor_stone'" in result.output
    assert _tombstones(workspace) == before
    (vault / "People" / "Victor Stone.md").write_text(VICTOR, encoding="utf-8")
    workspace.ingest()
    assert MemoryClient("test", workspace.config_path).get_entity("person_id:victor_stone")["name"] == "Victor Stone"
