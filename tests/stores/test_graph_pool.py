"""Graph writers never overlap: the repo's dagster.yaml pools serialize them.

A real DagsterInstance in a temporary DAGSTER_HOME with the repository's dagster.yaml.
A first run holds the `graph_writer` pool (an asset in that pool that waits until the test
lets it finish); a real ingest run started meanwhile is blocked before `entity_graph`,
then writes its graph and succeeds once the slot is free.

Why not two queued runs through the daemon: that needs `dagster-daemon` plus a code server
and a subprocess per run (each loading Dagster, torch and the stores: well over a minute on
this 2-core machine). The pool check tested here is the same one those run workers perform
against the instance's storage before each step; the run queue settings are checked as
configuration.
"""

import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dagster as dg

from mnemo_dagster.assets.ingest import GRAPH_POOL
from tests.support import REPO, make_workspace

WAIT = 60.0


def _events(instance: dg.DagsterInstance, run_id: str) -> list[dg.EventLogEntry]:
    return [e for e in instance.all_logs(run_id) if e.dagster_event is not None]


def _first(events: list[dg.EventLogEntry], kind: str, step: str) -> dg.EventLogEntry | None:
    return next((e for e in events if e.dagster_event.event_type_value == kind and e.step_key == step), None)


def _blocked(events: list[dg.EventLogEntry], step: str) -> bool:
    """The engine's 'Step blocked by limit for pool graph_writer' event for this step."""
    return any(
        e.step_key == step and e.dagster_event.event_type_value == "ENGINE_EVENT"
        and f"blocked by limit for pool {GRAPH_POOL}" in (e.dagster_event.message or "")
        for e in events
    )


def _wait_for(predicate, what: str) -> None:  # noqa: ANN001 - a zero-argument callable
    deadline = time.monotonic() + WAIT
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _instance(tmp_path: Path) -> dg.DagsterInstance:
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO / "dagster.yaml", home / "dagster.yaml")
    return dg.DagsterInstance.from_config(str(home))


def test_repo_settings_queue_runs_and_give_every_pool_one_slot(tmp_path: Path) -> None:
    with _instance(tmp_path) as instance:
        config = instance.get_concurrency_config()
        assert isinstance(instance.run_coordinator, dg.QueuedRunCoordinator)
        assert config.run_queue_config.max_concurrent_runs == 4
        assert config.pool_config.default_pool_limit == 1
        assert config.pool_config.pool_granularity.value == "op"


def test_a_second_graph_writer_waits_for_the_first_then_succeeds(tmp_path: Path, small_vault: Path) -> None:
    holding, release = threading.Event(), threading.Event()

    @dg.asset(pool=GRAPH_POOL)
    def held_graph_write() -> None:
        holding.set()
        assert release.wait(WAIT)

    with _instance(tmp_path) as instance:
        workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(small_vault)}]})
        workspace.instance = instance
        outcomes: dict[str, dg.ExecuteInProcessResult] = {}
        first = threading.Thread(target=lambda: outcomes.update(first=dg.materialize([held_graph_write], instance=instance)))
        second = threading.Thread(target=lambda: outcomes.update(second=workspace.ingest()))
        first.start()
        assert holding.wait(WAIT)
        second.start()
        try:
            _wait_for(lambda: _ingest_run(instance) and _blocked(_events(instance, _ingest_run(instance)), "entity_graph"),
                      "the ingest run to be blocked by the graph_writer pool")
            time.sleep(0.5)
            blocked_run = _events(instance, _ingest_run(instance))
            assert _first(blocked_run, "STEP_START", "entity_graph") is None  # still waiting, not writing
            assert _first(blocked_run, "STEP_SUCCESS", "extractions") is not None  # everything before it ran
        finally:
            release.set()
            first.join(WAIT)
            second.join(WAIT)
        assert outcomes["first"].success and outcomes["second"].success
        held_done = _first(_events(instance, outcomes["first"].run_id), "STEP_SUCCESS", "held_graph_write")
        graph_start = _first(_events(instance, outcomes["second"].run_id), "STEP_START", "entity_graph")
        assert graph_start.timestamp >= held_done.timestamp
        assert workspace.graph().counts()["Note"] >= 4
        assert instance.event_log_storage.get_concurrency_info(GRAPH_POOL).slot_count == 1


def _ingest_run(instance: dg.DagsterInstance) -> str | None:
    runs = [r for r in instance.get_runs() if r.job_name == "ingest_job"]
    return runs[0].run_id if runs else None


def test_a_child_started_after_an_in_process_run_stops_on_sigterm_in_a_background_job() -> None:
    """A process started with SIGINT ignored (a shell's background job) runs a Dagster job in
    process, as the tests do, then starts a child: the child still stops on SIGTERM (Dagster's
    compute-log tails are stopped that way; with SIGTERM ignored they outlived the test run)."""
    code = (
        "import subprocess, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "import conftest  # the test session's setup\n"
        "import dagster as dg\n"
        "@dg.asset\n"
        "def nothing() -> None: ...\n"
        "assert dg.materialize([nothing]).success\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        "child.terminate()\n"
        "try:\n"
        "    print(child.wait(10))\n"
        "except subprocess.TimeoutExpired:\n"
        "    child.kill()\n"
        "    print('SIGTERM ignored')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == str(-signal.SIGTERM), done.stdout
