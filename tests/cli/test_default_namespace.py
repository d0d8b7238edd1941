"""Commands use the namespace the configuration names: `default_namespace`, else its only namespace.
With several namespaces and no default, a command without --namespace fails naming them."""

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.config import load_config
from mnemo.errors import ConfigError
from tests.support import make_workspace

runner = CliRunner()


def _workspace(tmp_path: Path, names: list[str], default: str | None = None) -> Path:
    (tmp_path / "vault").mkdir(exist_ok=True)
    ws = make_workspace(tmp_path, {n: [{"kind": "obsidian", "path": str(tmp_path / "vault")}] for n in names})
    if default is not None:
        config = yaml.safe_load(ws.config_path.read_text())
        ws.config_path.write_text(yaml.safe_dump({**config, "default_namespace": default}))
    return ws.config_path


def _status(config: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["status", "--config", str(config)])
    return result.exit_code, " ".join(result.output.split())


def test_the_only_namespace_is_the_default(tmp_path: Path) -> None:
    code, out = _status(_workspace(tmp_path, ["journal"]))
    assert code == 0 and "namespace 'journal' has no data yet" in out


def test_default_namespace_picks_one_of_several(tmp_path: Path) -> None:
    code, out = _status(_workspace(tmp_path, ["journal", "work"], default="work"))
    assert code == 0 and "namespace 'work' has no data yet" in out


def test_several_namespaces_without_a_default_fail_naming_them(tmp_path: Path) -> None:
    code, out = _status(_workspace(tmp_path, ["journal", "work"]))
    assert code == 2
    assert "2 namespaces configured (journal, work)" in out and "--namespace" in out


def test_a_default_that_is_not_configured_is_a_config_error(tmp_path: Path) -> None:
    config = _workspace(tmp_path, ["journal"], default="example")
    with pytest.raises(ConfigError, match="default_namespace 'example' is not a configured namespace"):
        load_config(config)
