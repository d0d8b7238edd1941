"""What `mnemo` refuses and shows, on a namespace with no sources (no Dagster, no ingest):
non-UTF-8 arguments, malformed --since/--until, control characters in titles; `list` shows
each memory's true status."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.recall.time_bounds import FORMS

MNEMO = [sys.executable, "-m", "mnemo.cli.main"]


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "mnemo.yaml"
    path.write_text(f"data_dir: {tmp_path / 'data'}\nnamespaces:\n  test:\n    sources: []\n"
                    "embedder:\n  kind: hashing\n", encoding="utf-8")
    return path


def invoke(config: Path, *args: str) -> tuple[int, str]:
    out = CliRunner().invoke(app, [*args, "-n", "test", "--config", str(config)])
    return out.exit_code, " ".join(out.output.split())


def test_an_argument_that_is_not_utf8_is_a_clear_error(config: Path) -> None:
    done = subprocess.run([*MNEMO, "remember", b"caf\xff", "-n", "test", "--config", str(config)],
                          capture_output=True, env=dict(os.environ), timeout=300)
    err = done.stderr.decode("utf-8")
    assert done.returncode == 2 and "Traceback" not in err
    assert "argument 2 ('caf\\xff') is not valid UTF-8 text" in " ".join(err.split())


@pytest.mark.parametrize(("args", "message"), [
    (["--since", "20261101"], f"--since '20261101' is not a date or time: use {FORMS}"),
    (["--until", "2026-W44"], f"--until '2026-W44' is not a date or time: use {FORMS}"),
    (["--since", "2026-11-02", "--until", "2026-11-01"], "--since 2026-11-02 is after --until 2026-11-01"),
])
def test_malformed_since_and_until_are_refused_by_name(config: Path, args: list[str], message: str) -> None:
    code, out = invoke(config, "recall", "lunch", *args)
    assert code == 2 and message in out, out


@pytest.mark.parametrize("title", ["a\x00b", "Trip\nto Oslo", "Trip\tOslo"])
def test_a_title_with_a_control_character_is_refused(config: Path, title: str) -> None:
    code, out = invoke(config, "save", title, "Boxes for the books.")
    assert code == 2 and f"invalid title {ascii(title)}: it has a control character" in out, out
    assert not list((config.parent / "data").rglob("mem_*.json"))


def test_list_shows_memories_recallable_once_they_are(config: Path) -> None:
    assert invoke(config, "remember", "Lunch with Dana on Friday.")[0] == 0
    assert invoke(config, "save", "Packing list", "Boxes for the books.")[0] == 0
    code, out = invoke(config, "list", "--json")
    assert code == 0 and [m["status"] for m in json.loads(out)] == ["recallable", "recallable"]
    code, out = invoke(config, "list")
    assert code == 0 and "recallable" in out and "processing" not in out
