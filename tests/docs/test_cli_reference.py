"""docs/CLI.md is generated from the CLI and every command explains itself."""

import importlib.util
from types import ModuleType

import typer

from tests.support import REPO

ROOT = REPO


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_cli_reference_is_what_the_cli_says() -> None:
    script = _script()
    committed = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    assert committed == script.render(), "docs/CLI.md is stale: run python scripts/cli_reference.py"


def test_every_command_has_help_text() -> None:
    script = _script()
    assert script.missing_help(script.entries()) == []


def test_reference_covers_every_command_and_subcommand() -> None:
    script = _script()
    text = script.render()
    paths = [entry.path for entry in script.entries()]
    for command in ("sleep", "compact", "merges", "unmerge", "review accept", "extraction", "eval notes", "keys create"):
        assert f"mnemo {command}" in paths
    for path in paths:
        assert f"\n## {path}\n" in text or f"\n### {path}\n" in text, path


def test_a_command_without_help_is_found() -> None:
    script = _script()
    probe = typer.Typer(help="A probe.")

    @probe.command()
    def documented() -> None:
        """Does one thing."""

    @probe.command()
    def silent() -> None:
        pass

    assert script.missing_help(script.entries(script.root_group(probe))) == ["mnemo silent"]


def test_an_option_default_and_help_reach_the_reference() -> None:
    text = _script().render()
    section = text.split("\n## mnemo serve\n", 1)[1].split("\n## ", 1)[0]
    assert "| `--port <int>` | Port to listen on. [default: 8765] |" in section
