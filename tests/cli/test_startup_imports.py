"""Fast start: loading the `mnemo` command (what every `--help` pays) leaves the heavy libraries,
the configuration and the parsers unloaded; a command loads them when it needs them. Checked in a
fresh interpreter, by the modules it holds, not by a time."""

import json
import subprocess
import sys

HEAVY = ("torch", "sentence_transformers", "transformers", "lancedb", "kuzu", "dagster", "polars", "pyarrow")
# lighter, but a third of a second together: the configuration (pydantic, yaml), init's config file
# writer (ruamel) and the source scanners (markdown_it)
CONFIG_AND_PARSERS = ("pydantic", "yaml", "ruamel", "markdown_it", "mnemo.config", "mnemo.sources.scan")
# typer itself loads these once it prints help (rich.markdown) or reads a command's options (pydantic
# converts the values), so the help tests watch mnemo's own modules that would bring them
LOADED_BY_TYPER = ("pydantic", "markdown_it")
# rich's live display (ingest's progress bars) loads when ingest runs
LIVE_DISPLAY = ("rich.progress", "rich.live")
NOT_FOR_HELP = [*HEAVY, *(m for m in CONFIG_AND_PARSERS if m not in LOADED_BY_TYPER), *LIVE_DISPLAY]


def _loaded_after(code: str, watched: list[str]) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in {watched!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_loading_the_cli_loads_no_heavy_library_no_configuration_no_parser() -> None:
    assert _loaded_after("import mnemo.cli.main", [*HEAVY, *CONFIG_AND_PARSERS, *LIVE_DISPLAY]) == []


def test_the_top_help_loads_no_configuration() -> None:
    code = """
import contextlib, io
from typer.main import get_command
from mnemo.cli.main import app

with contextlib.redirect_stdout(io.StringIO()):
    get_command(app).main(["--help"], prog_name="mnemo", standalone_mode=False)
"""
    assert _loaded_after(code, [*NOT_FOR_HELP, "pydantic"]) == []


def test_help_of_every_command_loads_no_heavy_library_no_configuration_no_parser() -> None:
    code = """
import contextlib, io
import click
from typer.core import TyperGroup
from typer.main import get_command
from mnemo.cli.main import app

def helps(group, words):
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        with contextlib.redirect_stdout(io.StringIO()):
            get_command(app).main([*words, name, "--help"], prog_name="mnemo", standalone_mode=False)
        if isinstance(command, TyperGroup):
            helps(command, [*words, name])

helps(get_command(app), [])
"""
    assert _loaded_after(code, NOT_FOR_HELP) == []


def test_a_command_still_loads_what_it_needs() -> None:
    assert "polars" in _loaded_after("from mnemo.cli.main import app\nimport mnemo.stores.files", list(HEAVY))
