"""A write-back run killed at random points leaves every note either old or new, never partial."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.writeback import snapshot
from mnemo.writeback.run import journal_for, plan_namespace, writeback_namespace
from ontology import load_ontology
from tests.support import REPO, Workspace

pytestmark = pytest.mark.slow  # over 20 s on two cores

DAY = "2026-11-22"
KILLS = 4
RUNNER = """
import sys
from mnemo.config import load_config
from mnemo.writeback.note_files import sweep_temp_files
from mnemo.writeback.run import apply_plan, journal_for, new_run_id, plan_namespace
from ontology import load_ontology
config = load_config(sys.argv[1])
sweep_temp_files([s.path for s in config.namespaces["test"].sources])
plan = plan_namespace(config, "test", load_ontology(), sys.argv[2])
print("start", flush=True)
apply_plan(plan, journal_for(config, "test"), new_run_id())
"""

def add_generated_notes(vault: Path, count: int = 100) -> None:
    """More notes that link to each other and to the example's people, in varied styles."""
    folder = vault / "Generated"
    folder.mkdir()
    people = ["Alice Chen", "Bob Martins", "Carla Duarte", "Dana Kim"]
    for i in range(count):
        head = ["", "---\ntags: [gen]\n---\n", "---\r\n# a comment\r\nrating: 3\r\n---\r\n", "\ufeff---\ntitle: 'N'\n---\n"][i % 4]
        body = f"Note {i} links [[Note {(i * 7 + 1) % count}]] and [[{people[i % 4]}]].\n" + "words " * (i % 50)
        (folder / f"Note {i}.md").write_bytes((head + body).encode("utf-8"))



def start_run(workspace: Workspace, fault: str | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "MNEMO_FAULT": fault} if fault else None
    process = subprocess.Popen(
        [sys.executable, "-c", RUNNER, str(workspace.config_path), DAY],
        stdout=subprocess.PIPE, text=True, cwd=REPO, env=env,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "start"
    return process


def test_killed_runs_leave_every_note_old_or_new(workspace: Workspace, vault: Path) -> None:
    add_generated_notes(vault)
    workspace.ingest()
    old = snapshot(vault)
    plan = plan_namespace(workspace.config, "test", load_ontology(), DAY)
    new = {**old, **{c.path: c.new_text.encode("utf-8") for c in plan.changes}}
    assert len(plan.changes) > 130

    full = start_run(workspace)
    began = time.monotonic()
    assert full.wait(timeout=120) == 0
    window = time.monotonic() - began
    assert snapshot(vault) == new

    rng = random.Random(int(os.environ.get("MNEMO_CRASH_SEED", "7")))
    partial_runs = 0
    for kill in range(KILLS):
        for path, data in old.items():
            (vault / path).write_bytes(data)
        if kill == 0:  # killed by itself before its n-th note's rename: surely in the middle of the writes
            process = start_run(workspace, f"writeback:note@{rng.randint(2, len(plan.changes) - 1)}:kill")
        else:  # killed from outside at any moment of the run
            process = start_run(workspace)
            time.sleep(rng.uniform(0, window))
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        now = snapshot(vault)
        assert set(now) == set(old)
        torn = [p for p in now if now[p] not in (old[p], new[p])]
        assert torn == []
        written = sum(now[p] != old[p] for p in now)
        print(f"killed after {written} of {len(plan.changes)} notes")
        partial_runs += 0 < written < len(plan.changes)
    assert partial_runs >= 1, "no kill landed in the middle of the writes"

    journal_for(workspace.config, "test").entries()
    _, report = writeback_namespace(workspace.config, "test", load_ontology(), today=DAY)
    assert snapshot(vault) == new
    assert report.skipped == [s for s in plan.skipped]
    assert not [p for p in vault.rglob("*") if p.name.endswith(".mnemo-tmp")]
