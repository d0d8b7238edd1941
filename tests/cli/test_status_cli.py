"""`mnemo status` reads and never writes: a namespace that is not configured (and has no data)
is an error naming the config file; a configured one with nothing ingested says so. Neither
creates anything on disk."""

from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from tests.support import make_workspace

runner = CliRunner()


def _tree(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_status_of_an_unconfigured_namespace_fails_and_creates_nothing(tmp_path: Path) -> None:
    (tmp_path / "vault").mkdir()
    ws = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(tmp_path / "vault")}]})
    before = _tree(tmp_path)
    result = runner.invoke(app, ["status", "-n", "example", "--config", str(ws.config_path)])
    assert result.exit_code == 2
    message = " ".join(result.output.split())
    assert "namespace 'example' is not in" in message and "(configured: test)" in message
    assert _tree(tmp_path) == before
    result = runner.invoke(app, ["status", "-n", "test", "--config", str(ws.config_path)])
    assert result.exit_code == 0 and "has no data yet" in " ".join(result.output.split())
    assert _tree(tmp_path) == before
