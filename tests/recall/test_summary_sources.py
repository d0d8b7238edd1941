"""Summaries are right about their sources: each cites only passages a sentence of it was taken
from; a period that gains a passage (a late import) gets its summary rebuilt at the next
consolidation; until then recall finds the new passage itself and no summary claims it."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.summaries import read_summaries
from mnemo.sleep.text import sentences
from tests.support import Workspace, daily_notes_workspace

NOW = datetime(2026, 11, 21, 3, tzinfo=UTC)  # June 2026 is 90+ days old: week and month summaries exist
DAYS = {
    "2026-06-02": "Decided with Marta to repaint the boat hull in 3 coats before the regatta.",
    "2026-06-03": "Bought 12 litres of marine varnish from Porto Nautica for the boat.",
}
LATE = ("2026-06-20", "Lysozyme and lactoferrin in dog saliva fight bacteria, Dr Ana Costa explained at 9 am.")


@pytest.fixture
def boat(tmp_path: Path) -> tuple[Workspace, Path]:
    return daily_notes_workspace(tmp_path, DAYS)


def _chunks(workspace: Workspace) -> dict[str, tuple[str, str]]:
    """chunk id -> (day, text)"""
    return {c.id: ((c.timestamp or "")[:10], c.text) for c in workspace.files().read_chunks()}


def _assert_sources_true(workspace: Workspace) -> None:
    chunks = _chunks(workspace)
    for summary in read_summaries(workspace.files().root):
        assert summary["sources"], summary["id"]
        for source in summary["sources"]:
            day, text = chunks[source]
            assert summary["period_start"] <= day <= summary["period_end"], (summary["id"], source)
            assert any(s.text in summary["text"] for s in sentences(text, source)), (summary["id"], source)


def test_summaries_cite_only_what_they_were_made_from_and_are_rebuilt_when_their_period_grows(boat: tuple[Workspace, Path]) -> None:
    workspace, vault = boat
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), NOW)
    _assert_sources_true(workspace)
    month = {s["id"]: s for s in read_summaries(workspace.files().root)}["summary_month_2026-06"]

    (vault / "Daily" / f"{LATE[0]}.md").write_text(LATE[1] + "\n", encoding="utf-8")  # a late import into June
    workspace.ingest()
    late = next(i for i, (day, _) in _chunks(workspace).items() if day == LATE[0])
    client = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0))
    before_sleep = client.recall("which compounds in dog saliva fight bacteria", k=3)
    assert before_sleep.items[0].id == late  # found itself, not hidden behind June's summary
    assert all(late not in i.metadata.get("sources", []) + i.metadata.get("matched", [])
               for i in before_sleep.items if i.kind == "summary")

    consolidate(workspace.files(), workspace.graph(), SleepConfig(), NOW)
    _assert_sources_true(workspace)
    rebuilt = {s["id"]: s for s in read_summaries(workspace.files().root)}["summary_month_2026-06"]
    assert rebuilt["digest"] != month["digest"] and late in rebuilt["sources"] and "Lysozyme" in rebuilt["text"]
