"""A namespace exists only when mnemo.yaml lists it: every surface refuses another name (a typo
must not start a second, empty memory) and creates nothing; a configured namespace that holds
nothing yet says to run `mnemo ingest`."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.errors import UnknownNamespace
from mnemo.serve.mcp import build_server
from tests.support import Workspace, make_workspace

runner = CliRunner()


@pytest.fixture
def two(tmp_path: Path, vault: Path) -> Workspace:
    """Namespaces `me` (the example vault) and `work` (no sources); nothing ingested."""
    return make_workspace(tmp_path, {"me": [{"kind": "obsidian", "path": str(vault)}], "work": []})


def _run(workspace: Workspace, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, [*args, "--config", str(workspace.config_path)])
    return result.exit_code, result.output


def _on_disk(workspace: Workspace) -> list[str]:
    data = workspace.root / "data"
    return sorted(str(p.relative_to(data)) for p in data.rglob("*")) if data.exists() else []


@pytest.mark.parametrize("args", [
    ["remember", "the spare key is under the blue pot"],
    ["recall", "spare key"],
    ["status"],
    ["forget", "--expired"],
    ["entity", "person_id:sam_rivera"],
    ["save", "Keys", "under the blue pot"],
    ["doctor"],
    ["extraction"],
    ["merges"],
    ["writeback"],
    ["backup", "out.tar"],
    ["mcp"],
])
def test_a_typo_in_the_namespace_is_refused_by_every_command_and_creates_nothing(
        two: Workspace, args: list[str]) -> None:
    before = _on_disk(two)
    code, out = _run(two, *args, "--namespace", "mee")
    assert code == 2, out
    assert "namespace 'mee' is not in" in out and "(configured: me, work)" in out and "did you mean 'me'?" in out
    assert _on_disk(two) == before and not (two.root / "data" / "mee").exists()


def test_ingest_and_keys_refuse_an_unknown_namespace(two: Workspace) -> None:
    code, out = _run(two, "ingest", "wrok")
    assert code == 2 and "did you mean 'work'?" in out
    code, out = _run(two, "keys", "create", "mee")
    assert code == 2 and "namespace 'mee' is not in" in out
    assert not (two.root / "data" / "api_keys.json").exists()


def test_an_unlike_name_is_refused_with_how_to_add_it(two: Workspace) -> None:
    code, out = _run(two, "remember", "x", "--namespace", "zzzzzzzz")
    assert code == 2 and "did you mean" not in out and "mnemo init PATH --name zzzzzzzz" in out


def test_the_client_and_the_mcp_server_refuse_an_unknown_namespace(two: Workspace) -> None:
    with pytest.raises(UnknownNamespace, match="did you mean 'me'"):
        MemoryClient("mee", two.config_path).remember("the spare key is under the blue pot")
    with pytest.raises(UnknownNamespace):
        build_server("mee", two.config_path)
    assert not (two.root / "data" / "mee").exists()


def test_recall_before_any_ingest_exits_non_zero_saying_run_ingest(two: Workspace) -> None:
    code, out = _run(two, "recall", "spare key", "--namespace", "work")
    assert code == 2 and "run `mnemo ingest`" in " ".join(out.split())
    assert _on_disk(two) == []  # asking made nothing
    code, out = _run(two, "status", "--namespace", "work")
    assert code == 0 and "run `mnemo ingest`" in " ".join(out.split())


def test_a_remembered_memory_is_recalled_before_any_ingest(two: Workspace) -> None:
    assert _run(two, "remember", "the spare key is under the blue pot", "--namespace", "work")[0] == 0
    code, out = _run(two, "recall", "where is the spare key", "--namespace", "work", "--json")
    assert code == 0 and "blue pot" in out
