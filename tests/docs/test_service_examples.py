"""The systemd user unit and the launchd agent in examples/service run `mnemo up` with options it has."""

import configparser
import plistlib
import shlex

import typer.main

from mnemo.cli.main import app
from tests.support import REPO

SERVICE = REPO / "examples" / "service"


def _up_options() -> set[str]:
    command = typer.main.get_command(app).commands["up"]  # type: ignore[attr-defined]
    return {flag for param in command.params for flag in param.opts}


def _check(argv: list[str]) -> None:
    assert argv[0].endswith("/.venv/bin/mnemo") and argv[1] == "up"
    assert {a for a in argv[2:] if a.startswith("--")} <= _up_options()


def test_the_launchd_agent_runs_mnemo_up() -> None:
    agent = plistlib.loads((SERVICE / "org.mnemo.up.plist").read_bytes())
    _check(agent["ProgramArguments"])
    assert agent["KeepAlive"] == {"SuccessfulExit": False}


def test_the_systemd_unit_runs_mnemo_up() -> None:
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string((SERVICE / "mnemo.service").read_text(encoding="utf-8"))
    _check(shlex.split(unit["Service"]["ExecStart"]))
    assert unit["Install"]["WantedBy"] == "default.target"
