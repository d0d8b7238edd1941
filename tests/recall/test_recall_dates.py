"""Dates in questions: parsed into day spans, used by eager recall to put the days named first,
and `mnemo recall --since/--until` as hard bounds."""

import json
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.recall.dates import DaySpan, dates_in
from mnemo.recall.settings import RecallSettings
from tests.support import Workspace, daily_notes_workspace

TODAY = date(2026, 11, 27)  # a Friday
DAYS = {
    # the other days say more of the question's words than the day it names
    "2022-04-14": "What did I write today? I write every morning: wrote three pages about writing habits.",
    "2022-05-14": "I did write a lot on the 14th: wrote letters, wrote the grant report, what a writing day.",
    "2022-07-14": "Went sailing with Priya on the lake; the wind picked up after lunch.",
    "2021-03-09": "Planted tomatoes and basil in the raised bed.",
}


@pytest.mark.parametrize(("question", "first", "last"), [
    ("what did I write on July 14, 2022?", "2022-07-14", "2022-07-14"),
    ("what happened on 14th of July 2022", "2022-07-14", "2022-07-14"),
    ("notes from Jul 14th, 2022 about sailing", "2022-07-14", "2022-07-14"),
    ("anything on 2022-07-14", "2022-07-14", "2022-07-14"),
    ("what did I plant in March 2021?", "2021-03-01", "2021-03-31"),
    ("what did I read in 2020", "2020-01-01", "2020-12-31"),
    ("what did I do last week", "2026-11-16", "2026-11-22"),
    ("who did I meet yesterday", "2026-11-26", "2026-11-26"),
    ("what happened last month", "2026-10-01", "2026-10-31"),
])
def test_dates_in_questions(question: str, first: str, last: str) -> None:
    assert dates_in(question, TODAY) == DaySpan(date.fromisoformat(first), date.fromisoformat(last))


@pytest.mark.parametrize("question", ["what did I write on February 30, 2022?", "tell me about May", "page 14 of 2022 report"])
def test_no_date_or_an_impossible_one(question: str) -> None:
    assert dates_in(question, TODAY) is None


def test_a_span_holds_every_timestamp_of_its_days() -> None:
    span = DaySpan(date(2022, 7, 14), date(2022, 7, 14))
    assert span.holds("2022-07-14") and span.holds("2022-07-14T23:59:59+00:00")
    assert not span.holds("2022-07-15") and not span.holds("2022-07-13T23:59:59") and not span.holds("")


@pytest.fixture
def journal(tmp_path: Path) -> Workspace:
    return daily_notes_workspace(tmp_path, DAYS, "journal")[0]


def test_eager_recall_puts_the_day_a_question_names_first(journal: Workspace) -> None:
    client = MemoryClient("test", journal.config_path, settings=RecallSettings(random_share=0.0))
    items = client.recall("what did I write on July 14, 2022?", k=3).items
    assert items[0].path == "Daily/2022-07-14.md" and "date" in items[0].reasons
    items = client.recall("what did I do in March 2021?", k=3).items
    assert items[0].path == "Daily/2021-03-09.md"
    undated = client.recall("what did I write on the 14th?", k=3).items
    assert undated[0].path != "Daily/2022-07-14.md"  # without a date, the words decide


def test_cli_recall_since_until(journal: Workspace) -> None:
    runner = CliRunner()
    args = ["recall", "what did I write", "-n", "test", "--json", "--config", str(journal.config_path)]
    result = runner.invoke(app, [*args, "--since", "2022-05-01", "--until", "2022-07-14"])
    assert result.exit_code == 0, result.output
    paths = {i["path"] for i in json.loads(result.output)["items"]}
    assert paths == {"Daily/2022-05-14.md", "Daily/2022-07-14.md"}
    result = runner.invoke(app, [*args, "--since", "July"])
    assert result.exit_code == 2 and "--since 'July' is not a date" in result.output
    result = runner.invoke(app, [*args, "--since", "2022-08-01", "--until", "2022-07-01"])
    assert result.exit_code == 2 and "is after --until" in result.output
