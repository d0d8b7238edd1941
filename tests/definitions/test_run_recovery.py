"""Runs recover from a predecessor whose process died, on the project's real instance.

Every run here is launched as its own process (`scripts/run_ingest.py`) against a persistent
instance made from the repo's dagster.yaml, as `make demo` does. A run SIGKILLed inside a graph
write leaves the `graph_writer` pool slot claimed in the instance's storage; the next run must
release it and finish, a run already waiting must be unblocked when the holder dies, and a waiting
run must end on SIGTERM.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from mnemo.maintenance.dump import differences
from mnemo_dagster.assets.ingest import GRAPH_POOL
from mnemo_dagster.resources.run_recovery import (
    WORKER_TAG,
    RunGuard,
    Worker,
    is_gone,
    release_dead_runs,
    this_worker,
)
from mnemo_dagster.sensors.recovery import run_recovery_sensor
from tests.stores.test_crash_consistency import small_vault
from tests.support import REPO
from tests.support.crash import Setup

pytestmark = pytest.mark.slow  # over 20 s on two cores

RUN_TIMEOUT = 240


def launch(setup: Setup, fault: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "DAGSTER_HOME": str(setup.dagster_home), "MNEMO_CONFIG": str(setup.config_path)}
    env.pop("MNEMO_FAULT", None)
    if fault:
        env["MNEMO_FAULT"] = fault
    return subprocess.Popen([sys.executable, str(REPO / "scripts" / "run_ingest.py"), setup.namespace], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finish(child: subprocess.Popen[str], timeout: float = RUN_TIMEOUT) -> int:
    try:
        _, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        raise AssertionError(f"the run did not finish in {timeout} s") from None
    assert child.returncode in (0, -signal.SIGKILL), err[-3000:]
    return child.returncode


def statuses(instance: dg.DagsterInstance) -> list[dg.DagsterRunStatus]:
    return [r.dagster_run.status for r in sorted(instance.get_run_records(), key=lambda r: r.create_timestamp)]


HOLDER = """
import sys, time
import dagster as dg
from mnemo_dagster.assets.ingest import GRAPH_POOL
from mnemo_dagster.resources import GraphResource, MnemoConfigResource

@dg.asset(pool=GRAPH_POOL)
def hold(graph: GraphResource) -> None:
    print("holding", flush=True)
    time.sleep(600)

job = dg.define_asset_job("hold_job", executor_def=dg.in_process_executor)
defs = dg.Definitions(assets=[hold], jobs=[job], resources={"graph": GraphResource(config=MnemoConfigResource(config_path=sys.argv[1]))})
defs.resolve_job_def("hold_job").execute_in_process(instance=dg.DagsterInstance.get())
"""


def hold_pool(setup: Setup) -> subprocess.Popen[str]:
    """A live run (its own process) that holds the graph_writer slot until it is killed."""
    env = {**os.environ, "DAGSTER_HOME": str(setup.dagster_home)}
    child = subprocess.Popen([sys.executable, "-c", HOLDER, str(setup.config_path)], cwd=REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "holding"
    return child


def wait_until_waiting(setup: Setup, waiter: subprocess.Popen[str], timeout: float = RUN_TIMEOUT) -> None:
    """Until a second run has asked for the graph_writer slot (and is blocked on it)."""
    deadline = time.monotonic() + timeout
    while setup.instance.event_log_storage.get_concurrency_info(GRAPH_POOL).pending_step_count == 0:
        assert waiter.poll() is None, "the waiting run ended before it asked for the pool"
        assert time.monotonic() < deadline, "the second run never asked for the graph_writer slot"
        time.sleep(0.2)


def test_a_run_after_one_sigkilled_in_a_graph_write_finishes_and_converges(tmp_path: Path) -> None:
    sources = [{"kind": "obsidian", "path": str(small_vault(tmp_path / "vault"))}]
    reference = Setup(tmp_path / "ref", sources)
    assert finish(launch(reference)) == 0
    setup = Setup(tmp_path / "killed", sources)
    assert finish(launch(setup, "graph.copy_nodes:Entity@1:kill")) == -signal.SIGKILL
    assert setup.instance.event_log_storage.get_concurrency_run_ids(), "the killed run should still hold its slot"
    began = time.monotonic()
    assert finish(launch(setup), timeout=120) == 0
    assert differences(setup.dump(), reference.dump()) == []
    assert statuses(setup.instance) == [dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.SUCCESS]
    assert setup.instance.event_log_storage.get_concurrency_run_ids() == set()
    assert time.monotonic() - began < 60


def test_a_waiting_run_goes_on_when_the_holder_dies_and_ends_on_sigterm(tmp_path: Path) -> None:
    sources = [{"kind": "obsidian", "path": str(small_vault(tmp_path / "vault"))}]
    setup = Setup(tmp_path / "s", sources)
    holder = hold_pool(setup)
    waiter = launch(setup)
    wait_until_waiting(setup, waiter)
    waiter.send_signal(signal.SIGTERM)
    try:
        waiter.wait(timeout=20)
    except subprocess.TimeoutExpired:
        waiter.kill()
        raise AssertionError("a run waiting for the pool ignored SIGTERM") from None
    assert waiter.returncode != 0
    second = launch(setup)
    wait_until_waiting(setup, second)
    holder.kill()
    holder.wait()
    assert finish(second, timeout=120) == 0
    assert statuses(setup.instance)[-1] == dg.DagsterRunStatus.SUCCESS


def test_only_runs_whose_process_is_gone_are_released(tmp_path: Path) -> None:
    instance = Setup(tmp_path / "s", []).instance
    me = this_worker()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    runs = {}
    for label, worker in (("alive", me), ("gone", Worker(me.host, gone.pid, me.started)),
                          ("reused", Worker(me.host, me.pid, "1")), ("elsewhere", Worker("another-host", gone.pid, ""))):
        run = instance.add_run(dg.DagsterRun(job_name="j", run_id=f"{label}-run", status=dg.DagsterRunStatus.STARTED,
                                             tags={WORKER_TAG: worker.tag}))
        runs[label] = run.run_id
    assert not is_gone(me) and is_gone(Worker(me.host, gone.pid, ""))
    released = release_dead_runs(instance)
    assert sorted(released) == ["gone-run", "reused-run"]
    assert instance.get_run_by_id("alive-run").status == dg.DagsterRunStatus.STARTED
    assert instance.get_run_by_id("elsewhere-run").status == dg.DagsterRunStatus.STARTED
    assert instance.get_run_by_id("gone-run").status == dg.DagsterRunStatus.FAILURE


def test_the_instance_admits_one_run_per_namespace_and_monitors_runs(tmp_path: Path) -> None:
    instance = Setup(tmp_path / "s", []).instance
    queue = instance.get_concurrency_config().run_queue_config
    assert queue is not None
    assert queue.tag_concurrency_limits == [{"key": key, "value": {"applyLimitPerUniqueValue": True}, "limit": 1}
                                            for key in ("mnemo/namespace", "dagster/partition")]
    assert instance.run_monitoring_enabled and instance.run_monitoring_settings["free_slots_after_run_end_seconds"] > 0


def test_the_recovery_sensor_releases_a_dead_run_for_the_queue(tmp_path: Path) -> None:
    instance = Setup(tmp_path / "s", []).instance
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = Worker(this_worker().host, gone.pid, "")
    instance.add_run(dg.DagsterRun(job_name="ingest_job", run_id="dead-run", status=dg.DagsterRunStatus.STARTED,
                                   tags={WORKER_TAG: dead.tag, "mnemo/namespace": "test"}))
    result = run_recovery_sensor(dg.build_sensor_context(instance=instance))
    assert isinstance(result, dg.SkipReason) and result.skip_message == "released 1 dead run(s)"
    assert instance.get_run_by_id("dead-run").status == dg.DagsterRunStatus.FAILURE
    again = run_recovery_sensor(dg.build_sensor_context(instance=instance))
    assert again.skip_message == "no dead run"


def test_a_runs_guard_stops_as_soon_as_the_run_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The watch waits on the signal pipe between its rounds; the run's end wakes it, so a run does
    not wait out the rest of the interval (it had added up to 2 s to every run). With a 60 s
    interval, waiting it out would take a minute; waking takes far less than half of that on any
    machine."""
    import mnemo_dagster.resources.run_recovery as run_recovery

    monkeypatch.setattr(run_recovery, "GUARD_INTERVAL_SECONDS", 60.0)
    instance = Setup(tmp_path / "s", []).instance
    run = instance.add_run(dg.DagsterRun(job_name="j", run_id="guarded-run", status=dg.DagsterRunStatus.STARTED))
    guard = RunGuard(instance, run.run_id)
    assert guard.start() == []
    assert guard._wakeup is not None, "the guard watches the signal pipe in the main thread"
    started = time.monotonic()
    guard.stop()
    assert time.monotonic() - started < 30.0
    assert not guard._thread.is_alive()
    assert instance.get_run_by_id(run.run_id).tags[WORKER_TAG] == this_worker().tag
