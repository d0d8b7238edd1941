"""A month page lists what was written that month: the notes created or edited in it, by their own
dates, each with its first sentence; its summary is whole sentences (English and Portuguese vaults)."""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.writeback.run import writeback_namespace
from mnemo.writeback.written import edited_day
from ontology import load_ontology
from tests.sleep.month_fixtures import ENGLISH, ENGLISH_JULY, FRAGMENTS, PORTUGUESE, PORTUGUESE_JULY
from tests.support import make_workspace

LATER = datetime(2024, 12, 1, 3, tzinfo=UTC)  # July 2024 closed more than 90 days ago: it has a month summary


def _month_page(tmp_path: Path, notes: dict[str, str]) -> str:
    vault = tmp_path / "vault"
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), LATER, None)
    writeback_namespace(workspace.config, "test", load_ontology(), today="2024-12-01")
    return (vault / "Mnemo" / "Months" / "Month 2024-07.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("notes", "july"), [(ENGLISH, ENGLISH_JULY), (PORTUGUESE, PORTUGUESE_JULY)], ids=["english", "portuguese"],
)
def test_the_month_page_lists_its_notes_with_first_sentences_under_a_whole_summary(
    tmp_path: Path, notes: dict[str, str], july: dict[str, str],
) -> None:
    page = _month_page(tmp_path, notes)
    listed = page.split("## Notes written this month\n\n", 1)[1].split("\n\n")[0].splitlines()
    assert listed == [f"- {line}" for line in july.values()]
    summary = page.split("# Month 2024-07\n\n", 1)[1].split("\n\n")[0]
    assert summary.startswith("2024-07-01 to 2024-07-31. ") and summary[-1] in ".!?…"
    for sentence in re.split(r"(?<=[.!?…])\s+", summary):
        assert not sentence.endswith(":") and not any(f in sentence for f in FRAGMENTS), sentence


def test_an_edit_date_is_the_notes_own_never_mnemos() -> None:
    assert edited_day('{"updated": "2024-07-21T10:00", "created": "2024-05-01"}', "mnemo") == "2024-07-21"
    assert edited_day('{"mnemo-updated": "2026-11-22"}', "mnemo") is None
    assert edited_day('{"Last Modified": "2024-08-02"}', "mnemo") == "2024-08-02"
