"""The run queue and the shard workers of the many-machine instance: the daemon looks for runs every
half second with the per-namespace limits of deploy/dagster.yaml, and a worker has imported what
every run needs before it takes the first."""

import subprocess
import sys
from contextlib import AbstractContextManager

import dagster as dg
import pytest
import yaml
from dagster._daemon.controller import create_daemon_of_type
from dagster._daemon.run_coordinator.queued_run_coordinator_daemon import QueuedRunCoordinatorDaemon

from tests.support import REPO

DEPLOYED = yaml.safe_load((REPO / "deploy" / "dagster.yaml").read_text(encoding="utf-8"))


def queue_instance(coordinator: dict[str, object]) -> AbstractContextManager[dg.DagsterInstance]:
    return dg.instance_for_test(overrides={"run_coordinator": coordinator, "concurrency": DEPLOYED["concurrency"]})


def test_the_daemon_looks_for_runs_every_half_second_with_one_run_per_namespace() -> None:
    with queue_instance(DEPLOYED["run_coordinator"]) as instance:
        daemon = create_daemon_of_type(QueuedRunCoordinatorDaemon.daemon_type(), instance)
        assert isinstance(daemon, QueuedRunCoordinatorDaemon) and daemon.interval_seconds == 0.5
        queue = instance.get_concurrency_config().run_queue_config
        assert queue is not None and queue.max_concurrent_runs == 16
        assert {limit["key"] for limit in queue.tag_concurrency_limits} == {"mnemo/namespace", "dagster/partition"}


def test_the_interval_takes_fractions_and_defaults_to_half_a_second() -> None:
    for given, interval in ((0.75, 0.75), (2, 2.0), (None, 0.5)):
        config = {"dequeue_interval_seconds": given} if given is not None else {}
        with queue_instance({**DEPLOYED["run_coordinator"], "config": config}) as instance:
            assert instance.run_coordinator.dequeue_interval_seconds == interval  # type: ignore[attr-defined]
    with pytest.raises(dg.DagsterInvalidConfigError):
        wrong = {**DEPLOYED["run_coordinator"], "config": {"dequeue_interval_seconds": "soon"}}
        with queue_instance(wrong) as instance:
            instance.run_coordinator  # noqa: B018  # made (and its config checked) when first used


@pytest.mark.shards
def test_a_worker_has_imported_what_runs_need_before_the_first() -> None:
    pytest.importorskip("dagster_postgres", reason="the scale extra is not installed (pip install -e '.[scale]')")
    probe = ("import sys, mnemo_dagster.shards.worker\n"
             "print(sorted(m for m in ('mnemo_dagster.definitions', 'mnemo_dagster.shards.storage', 'lancedb', 'kuzu') if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert found.stdout.split("\n")[-2] == "['kuzu', 'lancedb', 'mnemo_dagster.definitions', 'mnemo_dagster.shards.storage']"
