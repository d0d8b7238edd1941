"""The many-machine deployment on one host, for tests and the benchmark: a Dagster instance on
PostgreSQL (deploy/dagster.yaml as written), runs launched by shards.launcher onto Celery queues
in Redis, one Celery worker per shard (or one for all), the Dagster daemon and the webserver."""

import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
import yaml

from tests.support import REPO
from tests.support.host import descendants, read_processes
from tests.support.services import BIN, free_port, kill, spawn, stop, wait_for_port

INSTANCE_ENV = ("MNEMO_POSTGRES_URL", "MNEMO_CELERY_BROKER", "MNEMO_CELERY_BACKEND")  # what deploy/dagster.yaml reads
POLL_SECONDS = 1.0
LOCATION, REPOSITORY = "mnemo", "__repository__"  # deploy/workspace.yaml's code location; Definitions' repository
DONE = {dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE, dg.DagsterRunStatus.CANCELED}


@dataclass
class Cluster:
    root: Path
    postgres_url: str
    broker: str
    shards: list[str]
    namespaces: dict[str, list[dict[str, str]]]  # name -> its sources
    placement: dict[str, str] = field(default_factory=dict)
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    code_port: int = field(default_factory=free_port)
    service_pids: list[int] = field(default_factory=list)  # servers not started as children here (PostgreSQL)
    _client: Any = None  # the GraphQL client submitting runs, made at the first

    @property
    def home(self) -> Path:
        return self.root / "dagster"

    @property
    def config_path(self) -> Path:
        return self.root / "mnemo.yaml"

    def data_root(self, shard: str) -> Path:
        return self.root / "shards" / shard

    def write(self, monitor_seconds: int | None = None) -> None:
        """The config file with its shards, the instance (deploy/dagster.yaml; run monitoring's poll
        shortened to `monitor_seconds`), Celery's settings."""
        self.home.mkdir(parents=True, exist_ok=True)
        instance = yaml.safe_load((REPO / "deploy" / "dagster.yaml").read_text(encoding="utf-8"))
        if monitor_seconds is not None:
            instance["run_monitoring"]["poll_interval_seconds"] = monitor_seconds
        (self.home / "dagster.yaml").write_text(yaml.safe_dump(instance), encoding="utf-8")
        shards = {s: {"data_dir": str(self.data_root(s)), "queue": f"mnemo-{s}",
                      "url": f"http://127.0.0.1:{self.port}/{s}"} for s in self.shards}
        namespaces = {ns: {"sources": src} for ns, src in self.namespaces.items()}
        config = {"data_dir": str(self.root / "unsharded"), "embedder": {"kind": "hashing"}, "shards": shards,
                  "placement": self.placement, "namespaces": namespaces}
        self.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
        (self.root / "celeryconf").mkdir(exist_ok=True)
        (self.root / "celeryconf" / "dagster_celery_config.py").write_text(
            f"broker_url = {self.broker!r}\nresult_backend = {self.broker!r}\n"
            "worker_prefetch_multiplier = 1\ntask_acks_late = False\n", encoding="utf-8")
        with self.instance() as instance:
            instance.add_dynamic_partitions("namespace", sorted(self.namespaces))

    def env(self, shard: str | None = None) -> dict[str, str]:
        env = {**os.environ, "DAGSTER_HOME": str(self.home), "MNEMO_CONFIG": str(self.config_path),
               "MNEMO_POSTGRES_URL": self.postgres_url, "MNEMO_CELERY_BROKER": self.broker,
               "MNEMO_CELERY_BACKEND": self.broker, "MNEMO_CODE_SERVER_HOST": "127.0.0.1",
               "MNEMO_CODE_SERVER_PORT": str(self.code_port), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
               "PYTHONPATH": f"{self.root / 'celeryconf'}:{REPO}"}
        env.pop("MNEMO_SHARD", None)
        return {**env, "MNEMO_SHARD": shard} if shard else env

    def instance(self) -> dg.DagsterInstance:
        os.environ.update({k: v for k, v in self.env().items() if k in INSTANCE_ENV})
        return dg.DagsterInstance.from_config(str(self.home))

    def start_worker(self, name: str, queues: list[str], shard: str | None, fault: str | None = None,
                     core: int | None = None) -> subprocess.Popen[bytes]:
        """A Celery worker (one run at a time) reading `queues`, as `shard` (None: every shard's root);
        `fault` arms a write point in it ($MNEMO_FAULT); `core` pins it (and the runs it starts) to
        one CPU, as if it were a one-core machine of its own."""
        pin = ["taskset", "-c", str(core)] if core is not None else []
        argv = [*pin, str(BIN / "celery"), "-A", "dagster_celery.app", "worker", "-Q", ",".join(queues), "-c", "1",
                "-n", f"{name}@%h", "-l", "INFO", "--without-gossip", "--without-mingle", "--without-heartbeat",
                "-I", "mnemo_dagster.shards.worker"]
        env = {**self.env(shard), **({"MNEMO_FAULT": fault} if fault else {})}
        log = self.root / f"worker-{name}.log"
        seen = log.read_text(errors="replace").count(" ready.") if log.exists() else 0
        process = spawn(argv, env, log)
        self.processes[f"worker-{name}"] = process
        deadline = time.monotonic() + 120
        while log.read_text(errors="replace").count(" ready.") <= seen:  # Celery logs `celery@<name> ready.`
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker {name} did not start; see {log}")
            time.sleep(0.2)
        return process

    def start_control(self) -> None:
        """The code server, then the daemon (run queue, launches, monitoring) and the webserver (run
        submission) loading the code from it (deploy/workspace.yaml)."""
        code = [str(BIN / "dagster"), "code-server", "start", "-m", "mnemo_dagster.definitions", "-h", "127.0.0.1",
                "-p", str(self.code_port), "--location-name", "mnemo"]
        self.processes["code"] = spawn(code, self.env(), self.root / "code.log")
        wait_for_port(self.code_port, 180, self.processes["code"])
        workspace = ["-w", str(REPO / "deploy" / "workspace.yaml")]
        self.processes["daemon"] = spawn([str(BIN / "dagster-daemon"), "run", *workspace], self.env(),
                                         self.root / "daemon.log")
        web = [str(BIN / "dagster-webserver"), *workspace, "-h", "127.0.0.1", "-p", str(self.port)]
        self.processes["webserver"] = spawn(web, self.env(), self.root / "webserver.log")
        wait_for_port(self.port, 180, self.processes["webserver"])

    def submit(self, job: str, namespace: str) -> str:
        """A run of `job` for `namespace`, queued through the webserver as the UI or a sensor would
        (one client, naming the code location of deploy/workspace.yaml: one request per run)."""
        from dagster_graphql import DagsterGraphQLClient

        if self._client is None:
            self._client = DagsterGraphQLClient("127.0.0.1", port_number=self.port, timeout=120)
        tags = {"dagster/partition": namespace, "mnemo/namespace": namespace}
        return self._client.submit_job_execution(job, repository_location_name=LOCATION,
                                                 repository_name=REPOSITORY, tags=tags, run_config={})

    def wait(self, run_ids: list[str], seconds: float) -> dict[str, dg.DagsterRun]:
        """The runs once all have ended (TimeoutError naming those that have not). It looks once a
        second: the timings come from the run records, and a closer look takes CPU from the runs."""
        deadline = time.monotonic() + seconds
        with self.instance() as instance:
            while True:
                runs = {run.run_id: run for run in instance.get_runs(dg.RunsFilter(run_ids=run_ids))}  # one query
                pending = [r for r in run_ids if r not in runs or runs[r].status not in DONE]
                if not pending:
                    return runs
                if time.monotonic() > deadline:
                    raise TimeoutError(f"runs not ended after {seconds} s: {pending}; see {self.root}/*.log")
                time.sleep(POLL_SECONDS)

    def run_timing(self, run_ids: list[str]) -> dict[str, Any]:
        """When the runs were created, started and ended (Dagster's run records)."""
        with self.instance() as instance:
            records = instance.get_run_records(dg.RunsFilter(run_ids=run_ids))
        return {r.dagster_run.run_id: (r.create_timestamp.timestamp(), r.start_time, r.end_time) for r in records}

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds so far of each started process with its children, and of the servers in
        `service_pids` (PostgreSQL), from /proc."""
        processes = read_processes()
        trees = {name: [p.pid] for name, p in self.processes.items()}
        if self.service_pids:
            trees["postgres"] = self.service_pids
        return {name: sum(processes[pid][1] for pid in descendants(processes, roots)) for name, roots in trees.items()}

    def stop_all(self) -> None:
        for name in list(self.processes):
            process = self.processes.pop(name)
            if name.startswith("worker"):
                kill(process)
            else:
                stop(process)
