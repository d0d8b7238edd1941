"""Obsidian daily notes in the vault's own format and folder (`.obsidian/daily-notes.json`): read as
journal days, and every day link mnemo writes resolves to the existing daily note."""

import datetime as dt
import json
import re
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.sources.daily_notes import DailyNotes, daily_notes, format_day
from mnemo.writeback.run import writeback_namespace
from ontology import load_ontology
from tests.support import make_workspace

FORMATS = ["YYYY-MM-DD", "DD.MM.YYYY", "dddd, MMMM Do YYYY", "YYYY/MM/YYYY-MM-DD", "[Day] D MMM YY", "M-D-YYYY ddd"]


@given(st.dates(dt.date(2000, 1, 1), dt.date(2099, 12, 31)), st.sampled_from(FORMATS), st.sampled_from(["", "Daily"]))
def test_a_day_written_in_a_format_reads_back_as_the_same_day(day: dt.date, fmt: str, folder: str) -> None:
    settings = DailyNotes(fmt, folder)
    assert settings.day_of(settings.path(day)) == day.isoformat()


def test_the_settings_and_the_names_they_give(tmp_path: Path) -> None:
    assert daily_notes(tmp_path) == DailyNotes("YYYY-MM-DD", "")
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text('{"format": "dddd, MMMM Do YYYY", "folder": "/Journal/"}')
    settings = daily_notes(tmp_path)
    assert settings == DailyNotes("dddd, MMMM Do YYYY", "Journal")
    assert settings.path(dt.date(2022, 3, 8)) == "Journal/Tuesday, March 8th 2022.md"
    assert settings.day_of("Elsewhere/Tuesday, March 8th 2022.md") is None
    assert format_day(dt.date(2022, 3, 1), "[Week of] Do MMM") == "Week of 1st Mar"
    (tmp_path / ".obsidian" / "daily-notes.json").write_text("not json")
    assert daily_notes(tmp_path) == DailyNotes()


def _vault(root: Path) -> Path:
    vault = root / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    settings = {"format": "dddd, MMMM Do YYYY", "folder": "Journal"}
    (vault / ".obsidian" / "daily-notes.json").write_text(json.dumps(settings))
    (vault / "Journal").mkdir()
    (vault / "Journal" / "Tuesday, March 8th 2022.md").write_text("Met [[Alpha]] about [[Beta]].\n", encoding="utf-8")
    (vault / "Journal" / "Thursday, March 10th 2022.md").write_text("[[Alpha]] again.\n", encoding="utf-8")
    (vault / "Alpha.md").write_text("---\ntype: project\n---\nThe project.\n", encoding="utf-8")
    (vault / "Beta.md").write_text("---\ntype: person\n---\nWorks on [[Alpha]].\n", encoding="utf-8")
    return vault


def test_daily_notes_in_the_vaults_format_are_journal_days_and_day_links_resolve(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    days = {d.path: (d.kind, d.day) for d in workspace.files().read_documents() if d.path.startswith("Journal/")}
    assert days == {"Journal/Tuesday, March 8th 2022.md": ("journal", "2022-03-08"),
                    "Journal/Thursday, March 10th 2022.md": ("journal", "2022-03-10")}
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), datetime(2022, 6, 1, 3, tzinfo=UTC))
    _, report = writeback_namespace(workspace.config, "test", load_ontology(), today="2022-06-01")
    alpha = (vault / "Alpha.md").read_text(encoding="utf-8")
    assert ('mnemo-mentioned-in:\n  - "[[Thursday, March 10th 2022]]"\n  - "[[Tuesday, March 8th 2022]]"\n'
            "mnemo-mentioned-count: 2\nmnemo-mentioned-last: 2022-03-10\n") in alpha
    week = (vault / "Mnemo" / "Weeks" / "Week 2022-W10.md").read_text(encoding="utf-8")
    assert "\n- [[Tuesday, March 8th 2022]]\n- [[Thursday, March 10th 2022]]\n" in week
    texts = [(vault / p).read_text(encoding="utf-8") for p in report.pages]
    links = {t for text in texts for t in re.findall(r"\[\[([^\[\]]+)\]\]", text)}
    assert {t for t in links if "2022" in t} == {"Tuesday, March 8th 2022", "Thursday, March 10th 2022"}
