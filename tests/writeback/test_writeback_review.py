"""A write-back a person can review: the dry run sums up per property with examples (the full diff
only on request, all of it as data with --json), a real run ends with the command that undoes it,
and `writeback.include` / `writeback.exclude` restrict the notes it may touch."""

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from benchmarks.writeback import snapshot
from mnemo.cli.main import app
from tests.support import EXAMPLE_VAULT, Workspace, make_workspace

cli = CliRunner()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("review")
    shutil.copytree(EXAMPLE_VAULT, root / "vault")
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(root / "vault")}]})
    workspace.ingest()
    with workspace.graph().connect() as conn:  # a community, as sleep mode makes it: its page is generated
        conn.execute("CREATE (:Community {id: 'c1', level: 0, title: 'Heron team', summary: 'Alice leads Heron.'})")
        conn.execute("MATCH (e:Entity {id: 'person_alice_chen'}), (c:Community {id: 'c1'}) CREATE (e)-[:IN_COMMUNITY]->(c)")
    return root


@pytest.fixture
def workspace(template: Path, tmp_path: Path) -> Workspace:
    shutil.copytree(template / "vault", tmp_path / "vault")
    shutil.copytree(template / "data", tmp_path / "data")
    return make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(tmp_path / "vault")}]})


def _writeback(workspace: Workspace, *extra: str) -> str:
    result = cli.invoke(app, ["writeback", "--namespace", "test", "--config", str(workspace.config_path), *extra])
    assert result.exit_code == 0, result.output
    return result.output


def _set_writeback(workspace: Workspace, **settings: object) -> None:
    config = yaml.safe_load(workspace.config_path.read_text())
    config["writeback"] = settings
    workspace.config_path.write_text(yaml.safe_dump(config))


def test_dry_run_sums_up_per_property_with_ten_examples_and_the_diff_only_on_request(workspace: Workspace) -> None:
    vault = workspace.root / "vault"
    original = snapshot(vault)
    summary = _writeback(workspace, "--dry-run")
    diff = _writeback(workspace, "--dry-run", "--diff")
    data = json.loads(_writeback(workspace, "--dry-run", "--json"))
    assert snapshot(vault) == original
    diffs = re.split(r"(?m)^--- a/", diff)[1:]
    assert "--- a/" not in summary and len(diffs) == data["notes_to_change"] > 10
    assert f"{len(diffs)} notes to change" in summary
    for prop in ("mnemo-related", "mnemo-updated"):
        count = sum(f"\n+{prop}:" in d for d in diffs)
        assert data["properties"][prop] == count and re.search(rf"(?m)^  {prop} +{count} notes$", summary)
    assert data["pages"]["create"] == ["Mnemo/Communities/Heron team (community).md"]
    assert "generated pages: 1 to create, 0 to replace, 0 to remove" in summary
    assert len(data["examples"]) == 10 and len({e["path"].split("/")[0] for e in data["examples"]}) > 3
    first = data["examples"][0]
    assert first["lines"][0].startswith("mnemo-") and f"\n{first['path']}\n    {first['lines'][0]}\n" in summary
    assert summary.index("notes to change") < summary.index(first["path"])
    assert len(summary.splitlines()) < 200 < len(diff.splitlines())


def test_a_real_run_ends_with_the_command_that_undoes_it(workspace: Workspace) -> None:
    vault = workspace.root / "vault"
    original = snapshot(vault)
    output = _writeback(workspace)
    assert snapshot(vault) != original
    last = output.strip().splitlines()[-1]
    assert last.startswith("To undo this run: mnemo writeback ")
    words = shlex.split(last.removeprefix("To undo this run: "))
    assert words[0] == "mnemo"
    undone = cli.invoke(app, words[1:])
    assert undone.exit_code == 0, undone.output
    assert snapshot(vault) == original
    again = json.loads(_writeback(workspace, "--json"))
    assert again["undo"].endswith(f"--undo {again['run']} --config {workspace.config_path.resolve()}")


def test_include_and_exclude_restrict_the_notes_written_and_exclude_wins(workspace: Workspace) -> None:
    _set_writeback(workspace, include=["People", "Projects/"], exclude=["./Projects"])
    data = json.loads(_writeback(workspace, "--dry-run", "--json"))
    touched = {e["path"] for e in data["examples"]}
    assert touched and all(p.startswith("People/") for p in touched)
    vault = workspace.root / "vault"
    before = snapshot(vault)
    _writeback(workspace)
    after = snapshot(vault)
    changed = {p for p in after if after[p] != before.get(p) and not p.startswith("Mnemo/")}
    assert changed and all(p.startswith("People/") for p in changed)


@pytest.mark.parametrize("folder", ["../elsewhere", "/home/me/vault/People"])
def test_a_folder_outside_the_vault_is_refused_in_one_line(workspace: Workspace, folder: str) -> None:
    _set_writeback(workspace, include=[folder])
    result = cli.invoke(app, ["writeback", "--dry-run", "--namespace", "test", "--config", str(workspace.config_path)])
    said = " ".join(result.output.split())
    assert result.exit_code != 0 and f"writeback.include: Value error, '{folder}' is not a folder inside the vault" in said
    assert "Traceback" not in said
