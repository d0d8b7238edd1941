"""Salience rows that time alone cannot have changed yet are kept without computing them: at any
run time, later or replayed earlier, the result equals computing every row."""

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from benchmarks import access_log
from mnemo.config import SleepConfig
from mnemo.sleep import accesses, salience
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import merged_sleep_facts
from mnemo.sleep.salience import build_salience, record_access
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.view import FactsView
from tests.support import Workspace, make_workspace

T0 = datetime(2026, 11, 21, 3, tzinfo=UTC)


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


def _consolidated(journal: Workspace, settings: SleepConfig) -> tuple[SleepFiles, FactsView, dict[str, Any]]:
    """The journal ingested and consolidated at T0: its sleep files, its facts' view, its salience state."""
    journal.ingest()
    files = journal.files()
    consolidate(files, journal.graph(), settings, T0)
    sleep = SleepFiles(files.root)
    return sleep, FactsView(merged_sleep_facts(files)), sleep.read_state("salience")


@pytest.mark.parametrize("fade", [0.15, 0.4])
def test_kept_rows_equal_computed_rows_at_any_time(journal: Workspace, monkeypatch: pytest.MonkeyPatch, fade: float) -> None:
    files, settings = journal.files(), SleepConfig(fade_below=fade)
    sleep, view, state = _consolidated(journal, settings)
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


def test_the_folded_access_log_gives_what_replaying_it_all_gives(journal: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    files, settings = journal.files(), SleepConfig()
    sleep, view, state = _consolidated(journal, settings)
    items = sorted(state["first_seen"])
    chunks = [i for i in items if i not in view.entities]
    first_seen = dict(state["first_seen"])
    whole_reads: list[int] = []
    read_all = accesses.AccessHistory._read_all
    monkeypatch.setattr(accesses.AccessHistory, "_read_all", lambda self: whole_reads.append(self._full is None) or read_all(self))
    rnd = random.Random(7)
    previous, due, fold, tainted, plain_runs = sleep.read_overlay("salience"), None, None, True, 0
    for n in range(60):
        replay = n % 13 == 12
        now = T0 - timedelta(days=2) if replay else T0 + timedelta(hours=11 * n, seconds=n)
        picked = rnd.sample(items, 5)
        record_access(files.root, picked[:3], "recall", now - timedelta(hours=rnd.randrange(1, 9)))
        record_access(files.root, picked[3:4], "lookup", now + timedelta(days=3))  # stamped ahead: pending
        if n % 9 == 4:
            record_access(files.root, picked[4:], "recall", T0 - timedelta(days=rnd.randrange(1, 40)))  # backdated
        if n == 30:
            first_seen[chunks[0]] = (now - timedelta(days=1)).isoformat(timespec="seconds")  # seen anew
        tainted = tainted or replay or n % 9 == 4 or n == 30
        before = sum(whole_reads)
        fast = build_salience(view, sleep, settings, now, first_seen, state["ranks"], previous, due, fold)
        if not tainted:  # a fold, and since it nothing but accesses stamped after it: only the new lines are read
            assert sum(whole_reads) == before, n
            plain_runs += 1
        full = build_salience(view, sleep, settings, now, first_seen, state["ranks"], previous, None, None)
        assert fast[0].to_json() == full[0].to_json(), n
        assert fast[1:] == full[1:], n
        if n % 3 == 0:
            previous, due, fold, tainted = fast[0], fast[3], fast[4], False
    assert plain_runs > 25
    assert [r for r in previous.nodes["Salience"].values() if r["accesses"] >= 2]  # items gathered accesses over the runs
    log = sleep.access_log
    log.write_bytes(log.read_bytes()[len(log.read_bytes()) // 2:])  # not the file the fold read
    now = T0 + timedelta(days=40)
    full = build_salience(view, sleep, settings, now, first_seen, state["ranks"], previous, None, None)
    assert fold is not None  # kept by the runs above
    for stale in (fold, {**fold, "items": None}, {"version": 1}):  # a fold of another file; broken folds
        fast = build_salience(view, sleep, settings, now, first_seen, state["ranks"], previous, due, stale)
        assert fast[0].to_json() == full[0].to_json() and fast[1:] == full[1:]


def test_the_access_log_benchmark_runs_and_checks_its_two_readings(journal: Workspace) -> None:
    journal.ingest()
    consolidate(journal.files(), journal.graph(), SleepConfig(), T0)
    rows = access_log.measure(journal.config_path, [0, 300], nights=2, per_night=40, namespace="test")
    assert [r["logged"] for r in rows] == [0, 300]  # the namespace's own log is empty
    assert all(r["nights"] == 2 and r["folded_s"] >= 0 and r["whole_s"] >= 0 for r in rows)  # tiny here: rounded, may be 0
    assert not SleepFiles(journal.files().root).access_log.exists()  # it worked on a copy


def test_a_line_being_written_is_read_whole_by_the_next_run(journal: Workspace) -> None:
    files, settings = journal.files(), SleepConfig()
    sleep, view, state = _consolidated(journal, settings)
    chunk = next(i for i in sorted(state["first_seen"]) if i not in view.entities)
    record_access(files.root, [chunk], "recall", T0 + timedelta(hours=1))
    line = b'{"at":"2026-11-21T05:00:00+00:00","id":"%s","kind":"recall"}\n' % chunk.encode()
    with sleep.access_log.open("ab") as handle:
        handle.write(line[:20])  # a recall in another process, halfway through its write
    now = T0 + timedelta(hours=3)
    args = (view, sleep, settings, now, state["first_seen"], state["ranks"], sleep.read_overlay("salience"))
    first = build_salience(*args)
    assert first[4]["offset"] == sleep.access_log.stat().st_size - 20  # the half line is left for later
    with sleep.access_log.open("ab") as handle:
        handle.write(line[20:])
    folded, whole = build_salience(*args, fold=first[4]), build_salience(*args)
    assert folded[0].to_json() == whole[0].to_json() and folded[1:] == whole[1:]
    row = next(r for r in folded[0].nodes["Salience"].values() if r["item_id"] == chunk)
    assert row["accesses"] == 2  # both accesses counted, neither lost nor twice
