"""Tables at 80 columns cut nothing a person needs: an id to copy into `mnemo unmerge` stays whole
on one line, and long names and paths fold onto more lines instead of ending in '…'."""

from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.sleep.merges import Merge, MergeLog, merge_id
from mnemo.sleep.store import SleepFiles
from tests.support import Workspace, make_workspace

runner = CliRunner()
CANONICAL = "person_id:alexandra_katharina_von_der_linden_hohenstein"
MERGED = "person_id:alexandra_von_der_linden_from_the_climbing_gym"


def _run(workspace: Workspace, *args: str) -> str:
    result = runner.invoke(app, [*args, "--config", str(workspace.config_path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def _column(out: str, index: int) -> list[str]:
    """The cells of one column, each with the pieces it folds onto several lines joined (no spaces)."""
    cells: list[str] = []
    piece = ""
    for line in out.splitlines():
        if line.startswith(("├", "└", "┡")):
            cells, piece = ([*cells, piece] if piece else cells), ""
        elif line.startswith("│"):
            piece += "".join(line.split("│")[index + 1].split())
    return cells


def test_merges_at_80_columns_show_whole_ids_and_names(workspace: Workspace) -> None:
    root = workspace.files().root
    merge = Merge(merge_id(CANONICAL, MERGED), CANONICAL, MERGED, 0.93, ("name",), "auto", "2026-11-28T03:00:00+00:00")
    MergeLog(SleepFiles(root)).record_merges([merge])
    out = _run(workspace, "merges", "-n", "test")
    body = [line for line in out.splitlines() if line.startswith("│")]
    assert "…" not in out and all(len(line) <= 80 and line.endswith("│") for line in body)  # nothing cropped
    assert any(f"│ {merge.merge_id} " in line for line in out.splitlines())  # whole, on one line: copyable
    assert _column(out, 1) == [CANONICAL] and _column(out, 2) == [MERGED]


def test_recall_at_80_columns_shows_the_whole_path(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    folder = vault / "journals" / "2022-11-05_the_long_walk_along_the_river"
    folder.mkdir(parents=True)
    (folder / "to_the_old_mill_with_the_whole_climbing_group.md").write_text(
        "# Walk\n\nWe walked along the river to the old mill and back.\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    out = _run(workspace, "recall", "walk to the old mill")
    path = "journals/2022-11-05_the_long_walk_along_the_river/to_the_old_mill_with_the_whole_climbing_group.md"
    assert "…" not in out and any(cell.startswith(path) for cell in _column(out, 3)), out
