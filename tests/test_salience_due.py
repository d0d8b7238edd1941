"""Salience rows that time alone cannot have changed yet are kept without computing them: at any
run time, later or replayed earlier, the result equals computing every row."""

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import Workspace, make_workspace
from mnemo.sleep import salience
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import merged_sleep_facts
from mnemo.sleep.salience import build_salience, record_access
from mnemo.sleep.settings import SleepConfig
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.view import FactsView

T0 = datetime(2026, 11, 21, 3, tzinfo=timezone.utc)


@pytest.fixture
def journal(tmp_path: Path) -> Workspace:
    """A vault of daily notes: every chunk is an episodic salience item."""
    vault = tmp_path / "vault" / "Daily"
    vault.mkdir(parents=True)
    for day in range(24):
        when = (T0 - timedelta(days=3 * day + 1)).date()
        (vault / f"{when}.md").write_text(f"- Walked to the harbour on {when} and wrote about it, note {day}.\n"
                                          f"- Cooked a long dinner with friends; we talked about trip number {day}.\n", encoding="utf-8")
    return make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(tmp_path / "vault")}]})


@pytest.mark.parametrize("fade", [0.15, 0.4])
def test_kept_rows_equal_computed_rows_at_any_time(journal: Workspace, monkeypatch: pytest.MonkeyPatch, fade: float) -> None:
    journal.ingest()
    files, settings = journal.files(), SleepConfig(fade_below=fade)
    consolidate(files, journal.graph(), settings, T0)
    sleep = SleepFiles(files.root)
    view = FactsView(merged_sleep_facts(files))
    state = sleep.read_state("salience")
    chunks = sorted(i for i in state["first_seen"] if i not in view.entities)
    assert len(chunks) == 24  # one per note
    first_seen = {**state["first_seen"], **{c: (T0 - timedelta(days=2.9 * n, seconds=n)).isoformat(timespec="seconds")
                                            for n, c in enumerate(chunks)}}  # spread, so rows cross their bounds at different times
    record_access(files.root, [chunks[0]], "recall", T0 + timedelta(days=2))  # an accessed item is always computed
    kept = []
    untouched = salience._untouched_chunk
    monkeypatch.setattr(salience, "_untouched_chunk", lambda old, seen: kept.append(1) or untouched(old, seen))
    previous, due = sleep.read_overlay("salience"), None
    times = [T0 + timedelta(hours=7 * k, seconds=k) for k in range(300)] + [T0 - timedelta(days=k) for k in (1, 5, 30)]
    for n, now in enumerate(times):
        fast = build_salience(view, sleep, settings, now, first_seen, state["ranks"], previous, due)
        full = build_salience(view, sleep, settings, now, first_seen, state["ranks"], previous, None)
        assert fast[0].to_json() == full[0].to_json(), now
        assert fast[1:] == full[1:], now
        if n % 4 == 0:  # a run that writes what it found; the others are runs at other times from the same state
            previous, due = fast[0], fast[3]
    assert sum(kept) > 20 * len(chunks)  # the shortcut was taken, and often
    faded = {r["item_id"] for r in previous.nodes["Salience"].values() if r["faded"]}
    assert faded & set(chunks) and set(chunks) - faded  # the runs crossed the fade threshold
