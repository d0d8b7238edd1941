"""Many machines on one host: PostgreSQL, Redis, the Dagster daemon and webserver, and two Celery
workers as two shards with their own data roots, all started here on loopback in temp folders.
Runs only with `-m shards` (`make test-shards`); skips where the services are not installed."""

import os
import shutil
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
import yaml

from benchmarks.synth import generate
from mnemo.config import load_config, rendezvous_shard
from mnemo.maintenance.dump import canonical_dump, differences
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from mnemo_dagster.resources.run_recovery import Worker
from ontology import load_ontology
from tests.support.cluster import Cluster
from tests.support.crash import persistent_instance
from tests.support.host import OtherWork
from tests.support.services import kill, postgres, redis, require_services

pytestmark = [pytest.mark.shards, pytest.mark.slow]
SHARDS = ["a", "b"]
CPUS = sorted(os.sched_getaffinity(0))  # the workers are pinned one per core, as machines of their own
NOTES = int(os.environ.get("MNEMO_SHARDS_NOTES", "300"))  # notes per namespace
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
FAULT = "graph.copy_nodes:Entity@1:kill"  # the worker process dies in the middle of the graph write


def six_namespaces() -> list[str]:
    """Three namespaces the hash puts on each shard (the rule itself decides, no placement)."""
    names = [f"person-{i}" for i in range(40)]
    return [n for n in names if rendezvous_shard(n, SHARDS) == "a"][:3] + \
        [n for n in names if rendezvous_shard(n, SHARDS) == "b"][:3]


@dataclass
class OneMachine:
    """The same sources on one machine: the in-process ingest job on the project's own instance
    (dagster.yaml with its SQLite storage, as `mnemo ingest` runs it)."""

    root: Path
    sources: dict[str, list[dict[str, str]]]

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True)
        self.config = self.root / "mnemo.yaml"
        self.config.write_text(yaml.safe_dump({"data_dir": str(self.root / "data"), "embedder": {"kind": "hashing"},
                                               "namespaces": {ns: {"sources": s} for ns, s in self.sources.items()}}))
        self.instance = persistent_instance(self.root / "dagster")
        self.instance.add_dynamic_partitions("namespace", sorted(self.sources))
        self.job = build_defs(default_resources(str(self.config))).resolve_job_def("ingest_job")

    def ingest(self, ns: str) -> float:
        """Ingest `ns` from scratch in this process, on one core as the workers run; the seconds it took."""
        shutil.rmtree(self.root / "data" / ns, ignore_errors=True)
        cores = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {CPUS[0]})
        try:
            started = time.monotonic()
            assert self.job.execute_in_process(partition_key=ns, instance=self.instance, run_config=QUIET,
                                               tags={"mnemo/namespace": ns}).success
            return time.monotonic() - started
        finally:
            os.sched_setaffinity(0, cores)

    def dump(self, ns: str) -> dict[str, Any]:
        return canonical_dump(self.root / "data", ns, load_ontology())


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, OneMachine, dict[str, Any]]]:
    require_services()
    root = tmp_path_factory.mktemp("shards")
    sources = {}
    for i, ns in enumerate(six_namespaces()):
        generate(root / "sources" / ns, NOTES, seed=100 + i, chats=0)
        sources[ns] = [{"kind": "obsidian", "path": str(root / "sources" / ns / "vault")}]
    local = OneMachine(root / "reference", sources)
    for ns in sources:
        local.ingest(ns)
    dumps = {ns: local.dump(ns) for ns in sources}
    with postgres() as pg, redis() as broker:
        c = Cluster(root / "cluster", pg.url, broker, SHARDS, sources, service_pids=[pg.pid()])
        c.write(monitor_seconds=5)
        try:
            c.start_control()
            yield c, local, dumps
        finally:
            c.stop_all()


def shard_workers(c: Cluster, fault: dict[str, str] | None = None) -> None:
    for core, shard in enumerate(SHARDS):  # each shard a one-core machine: this host has two cores
        c.start_worker(shard, [f"mnemo-{shard}"], shard, (fault or {}).get(shard), core=CPUS[core % len(CPUS)])


def ingest_all(c: Cluster, job: str = "ingest_job") -> tuple[dict[str, dg.DagsterRun], float]:
    """Every namespace's run of `job`, submitted at once; the runs and the wall time to the last end.
    It prints when each queue's runs ran, the CPU seconds the services took, and how much of the
    host other work took meanwhile."""
    other = OtherWork(c.service_pids)
    other.start()
    before = c.cpu_seconds()
    started = time.time()
    ids = [c.submit(job, ns) for ns in c.namespaces]
    runs = c.wait(ids, 900)
    timing = c.run_timing(ids)
    used = {name: round(cpu - before.get(name, 0.0), 1) for name, cpu in c.cpu_seconds().items()}
    ended = max(end for _, _, end in timing.values())
    print(f"\n{job} x{len(ids)}: first start after {min(s for _, s, _ in timing.values()) - started:.1f} s, runs "
          f"{sorted(round(e - s, 1) for _, s, e in timing.values())} s, last end after {ended - started:.1f} s; "
          f"{other.stop()}")
    queues: dict[str, list[str]] = {}
    for run_id, (_, start, end) in sorted(timing.items(), key=lambda item: item[1][1]):
        queues.setdefault(runs[run_id].tags.get("dagster-celery/queue", "?"), []).append(
            f"{start - started:.1f}-{end - started:.1f}")
    print("  runs from submission: " + "; ".join(f"{q} {', '.join(spans)}" for q, spans in sorted(queues.items())))
    print(f"  CPU seconds: {used}")
    failed = {r: run.tags.get("mnemo/namespace") for r, run in runs.items()
              if run.status != dg.DagsterRunStatus.SUCCESS}
    assert not failed, f"runs failed: {failed}; see {c.root}/*.log"
    return {run.tags["mnemo/namespace"]: run for run in runs.values()}, ended - started


def wipe(c: Cluster) -> None:
    for shard in SHARDS:
        shutil.rmtree(c.data_root(shard), ignore_errors=True)


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def assert_on_shards(c: Cluster, runs: dict[str, dg.DagsterRun]) -> None:
    """Each run went to its shard's queue and ran in that shard's worker; its files are only there."""
    config = load_config(c.config_path)
    for ns, run in runs.items():
        shard = config.shard_of(ns)
        assert run.tags["dagster-celery/queue"] == f"mnemo-{shard}"
        worker = Worker.parse(run.tags["mnemo/worker"])
        assert worker is not None and parent_of(worker.pid) == c.processes[f"worker-{shard}"].pid
        assert any((c.data_root(str(shard)) / ns).iterdir())
        others = [s for s in SHARDS if s != shard]
        assert not any((c.data_root(s) / ns).exists() for s in others), f"{ns} has files on another shard"
    assert not (c.root / "unsharded").exists()


def test_six_namespaces_on_two_shards(cluster: tuple[Cluster, OneMachine, dict[str, Any]]) -> None:
    c, local, dumps = cluster
    shard_workers(c)
    runs, two_workers = ingest_all(c)
    assert_on_shards(c, runs)
    for ns, expected in dumps.items():
        found = canonical_dump(c.data_root(str(load_config(c.config_path).shard_of(ns))), ns, load_ontology())
        assert not differences(found, expected), f"{ns}: {differences(found, expected)}"
    sleeps, _ = ingest_all(c, "sleep_mode_job")
    assert_on_shards(c, sleeps)
    stop_workers(c)
    wipe(c)
    c.start_worker("solo", [f"mnemo-{s}" for s in SHARDS], None, core=CPUS[0])  # one machine of the same size
    _, one_worker = ingest_all(c)
    queued, distributed, in_process = one_run_overhead(c, local)
    stop_workers(c)
    wipe(c)
    shard_workers(c)  # two workers again: the host's speed drifts, and the two measures of it bracket the one
    _, two_workers_again = ingest_all(c)
    stop_workers(c)
    two = (two_workers + two_workers_again) / 2
    speedup = one_worker / two
    print(f"\nsix namespaces, {NOTES} notes each, ingest: one worker {one_worker:.1f} s, two workers "
          f"{two:.1f} s (mean of {two_workers:.1f} s before and {two_workers_again:.1f} s after), speedup "
          f"{speedup:.2f}x (target >= 1.6: {'met' if speedup >= 1.6 else 'missed'}; each worker on one core; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"one namespace from scratch, median of 3: in-process job {in_process:.2f} s, distributed run "
          f"{distributed:.2f} s from submission to end (started after {queued:.2f} s), overhead "
          f"{distributed - in_process:.2f} s per run ({distributed / in_process:.2f}x)")
    # the floor that shows the shards run in parallel; the target above is printed (a shared host's load moves it)
    assert speedup >= float(os.environ.get("MNEMO_SHARDS_MIN_SPEEDUP", "1.3"))


def stop_workers(c: Cluster) -> None:
    for name in [n for n in c.processes if n.startswith("worker")]:
        kill(c.processes.pop(name))


def one_run_overhead(c: Cluster, local: OneMachine) -> tuple[float, float, float]:
    """One namespace ingested from scratch, three times each way, alternating: the median seconds
    from submission to start and to end of the distributed run (a warm worker), and of the
    in-process job on one machine."""
    ns = next(iter(c.namespaces))
    root = c.data_root(str(load_config(c.config_path).shard_of(ns)))
    queued, distributed, in_process = [], [], []
    for _ in range(3):
        shutil.rmtree(root / ns)
        started = time.time()
        run_id = c.submit("ingest_job", ns)
        assert c.wait([run_id], 300)[run_id].status == dg.DagsterRunStatus.SUCCESS
        _, start, end = c.run_timing([run_id])[run_id]
        queued.append(start - started)
        distributed.append(end - started)
        in_process.append(local.ingest(ns))
    return statistics.median(queued), statistics.median(distributed), statistics.median(in_process)


def test_a_worker_killed_mid_run_leaves_the_namespace_consistent(
        cluster: tuple[Cluster, OneMachine, dict[str, Any]]) -> None:
    c, _, dumps = cluster
    config = load_config(c.config_path)
    ns = next(n for n in c.namespaces if config.shard_of(n) == "b")
    shutil.rmtree(c.data_root("b") / ns, ignore_errors=True)
    shard_workers(c, fault={"b": FAULT})
    killed = c.submit("ingest_job", ns)
    deadline = time.monotonic() + 300
    while c.processes["worker-b"].poll() is None and not _pool_died(c) and time.monotonic() < deadline:
        time.sleep(0.2)
    kill(c.processes.pop("worker-b"))  # the shard's machine goes down with its worker
    assert differences(canonical_dump(c.data_root("b"), ns, load_ontology()), dumps[ns]), "the kill left nothing undone"
    c.start_worker("b", ["mnemo-b"], "b", core=CPUS[1 % len(CPUS)])  # and comes back
    assert c.wait([killed], 300)[killed].status == dg.DagsterRunStatus.FAILURE  # found dead, its namespace freed
    retry = c.submit("ingest_job", ns)
    assert c.wait([retry], 300)[retry].status == dg.DagsterRunStatus.SUCCESS
    assert not differences(canonical_dump(c.data_root("b"), ns, load_ontology()), dumps[ns])
    assert not (c.data_root("a") / ns).exists()


def _pool_died(c: Cluster) -> bool:
    return "WorkerLostError" in (c.root / "worker-b.log").read_text(errors="replace") or \
        "exited with 'signal 9" in (c.root / "worker-b.log").read_text(errors="replace")
