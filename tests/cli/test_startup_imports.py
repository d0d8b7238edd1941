"""Fast start: loading the `mnemo` command (what every `--help` pays) leaves the heavy libraries
unloaded; a command loads them when it needs them. Checked in a fresh interpreter, by the
modules it holds, not by a time."""

import json
import subprocess
import sys

HEAVY = ("torch", "sentence_transformers", "transformers", "lancedb", "kuzu", "dagster", "polars", "pyarrow")


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_loading_the_cli_loads_no_heavy_library() -> None:
    assert _loaded_after("import mnemo.cli.main") == []


def test_help_of_every_command_loads_no_heavy_library() -> None:
    code = """
import contextlib, io
import click
from typer.main import get_command
from mnemo.cli.main import app

def helps(group, words):
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        with contextlib.redirect_stdout(io.StringIO()):
            get_command(app).main([*words, name, "--help"], prog_name="mnemo", standalone_mode=False)
        if isinstance(command, click.Group):
            helps(command, [*words, name])

helps(get_command(app), [])
"""
    assert _loaded_after(code) == []


def test_a_command_still_loads_what_it_needs() -> None:
    assert "polars" in _loaded_after("from mnemo.cli.main import app\nimport mnemo.stores.files")
