"""`mnemo ingest` says what it is doing: in a pipe or a log, timestamped lines (the passages
embedded of how many, the checks as checks), and never more than ten seconds of silence."""

import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.ingest_progress import LogLines, Rate
from mnemo.cli.main import app
from mnemo.ingest.progress import every_few_seconds, parse_progress, progress_message
from mnemo_dagster.jobs.launch import StepEvent
from tests.support import EXAMPLE_VAULT, make_workspace

STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def vault_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    vault = shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    return make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]}).config_path


def test_a_piped_ingest_tells_passages_embedded_and_checks_as_checks(vault_config: Path) -> None:
    result = CliRunner().invoke(app, ["ingest", "--config", str(vault_config)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(re.match(STAMP + r"test chunks done in", line) for line in lines), result.output
    embedded = [line for line in lines if re.match(STAMP + r"test chunk_vectors: \d+/\d+ passages embedded", line)]
    assert embedded, result.output
    done, total = (int(n) for n in re.findall(r"(\d+)/(\d+) passages embedded", embedded[-1])[0])
    assert done == total > 0
    assert any(re.match(STAMP + r"test check chunk_vectors: chunk_vector_dimensions passed", line) for line in lines)
    assert "chunk_vectors_chunk_vector_dimensions" not in result.output  # a check is not a step


def test_the_embedding_count_is_logged_at_start_end_and_every_few_seconds() -> None:
    clock = Clock()
    said: list[str] = []
    report = every_few_seconds(said.append, seconds=2.0, clock=clock)
    for done in range(0, 101, 10):
        report(done, 100)
        clock.now += 0.5
    assert [parse_progress(line) for line in said] == [(0, 100), (40, 100), (80, 100), (100, 100)]
    assert parse_progress(progress_message(3, 7)) == (3, 7) and parse_progress("embedded 3 chunks") is None
    report(0, 0)  # nothing to embed: nothing said
    assert len(said) == 4


def test_the_rate_and_time_left_follow_the_count() -> None:
    clock = Clock()
    rate = Rate(clock)
    assert rate.describe(0, 1000) == "0/1000 passages embedded"
    clock.now += 10
    assert rate.describe(200, 1000) == "200/1000 passages embedded, 20.0/s, 40 s left"
    clock.now += 10
    assert rate.describe(400, 4000) == "400/4000 passages embedded, 20.0/s, 3 min 00 s left"


def test_a_log_hears_from_a_long_step_at_least_every_ten_seconds() -> None:
    clock = Clock()
    said: list[str] = []
    lines = LogLines(said.append, clock)
    lines(StepEvent("me", "entity_graph", "started", 6))
    for _ in range(25):
        clock.now += 1
        lines.tick()
    assert [line.split(" ", 2)[2] for line in said] == [
        "me entity_graph started", "me entity_graph still running (10 s)", "me entity_graph still running (20 s)"]
    lines(StepEvent("me", "entity_graph", "succeeded", 6, seconds=25.0))
    clock.now += 30
    lines.tick()  # nothing runs: nothing to say
    assert said[-1].endswith("me entity_graph done in 25.0 s")
