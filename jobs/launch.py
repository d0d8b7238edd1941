"""Running the ingest job from the command line on the project's Dagster instance, so each run is
recorded there and shows in the UI; its step events are passed on as they happen."""

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import dagster as dg

from mnemo.ingest.progress import parse_progress
from mnemo_dagster.jobs import namespace_tags

POLL_SECONDS = 0.2


@dataclass(frozen=True)
class StepEvent:
    """A step of a run starting, succeeding or failing; a check passing or failing; or how far the
    embedding step is (`kind` "embedding", status "progress": `done` passages of `total`)."""

    namespace: str
    step: str  # an asset's step, or for a check "asset: check"
    status: str  # "started" | "succeeded" | "failed" | "passed" (a check) | "progress"
    steps: int  # how many asset steps the run has (its checks apart)
    seconds: float | None = None
    message: str = ""
    kind: str = "step"  # "step" | "check" | "embedding"
    done: int = 0
    total: int = 0


@dataclass
class IngestOutcome:
    """One namespace's ingest run: its id, whether it succeeded, and each asset's metadata."""

    namespace: str
    run_id: str
    success: bool
    metadata: dict[str, dict[str, object]] = field(default_factory=dict)
    error: str = ""
    failed_checks: list[str] = field(default_factory=list)


class _Watcher(threading.Thread):
    """Reads a run's event log while the run goes on and reports each step's start and end."""

    def __init__(self, instance: dg.DagsterInstance, run_id: str, namespace: str, checks: set[str], steps: int,
                 report: Callable[[StepEvent], None]) -> None:
        super().__init__(daemon=True, name=f"watch-{run_id[:8]}")
        self.instance, self.run_id, self.namespace, self.report = instance, run_id, namespace, report
        self.checks, self.steps = checks, steps
        self.done = threading.Event()
        self.cursor: str | None = None
        self.started: dict[str, float] = {}

    def run(self) -> None:
        while not self.done.wait(POLL_SECONDS):
            self.poll()
        self.poll()

    def poll(self) -> None:
        found = self.instance.get_records_for_run(self.run_id, cursor=self.cursor)
        for record in found.records:
            self._handle(record.event_log_entry)
        self.cursor = found.cursor

    def _handle(self, entry: dg.EventLogEntry) -> None:
        event = entry.dagster_event
        if event is None:
            self._progress(entry)
            return
        if event.step_key is None:
            return
        if event.step_key in self.checks:
            self._check(event)
        elif event.is_step_start:
            self.started[event.step_key] = entry.timestamp
            self.report(StepEvent(self.namespace, event.step_key, "started", self.steps))
        elif event.is_step_success or event.is_step_failure:
            seconds = entry.timestamp - self.started.get(event.step_key, entry.timestamp)
            status = "succeeded" if event.is_step_success else "failed"
            message = event.step_failure_data.error.message.strip() if event.is_step_failure and \
                event.step_failure_data.error else ""
            self.report(StepEvent(self.namespace, event.step_key, status, self.steps, seconds, message))

    def _progress(self, entry: dg.EventLogEntry) -> None:
        found = parse_progress(entry.user_message) if entry.step_key else None
        if found is not None and entry.step_key:
            self.report(StepEvent(self.namespace, entry.step_key, "progress", self.steps, kind="embedding",
                                  done=found[0], total=found[1]))

    def _check(self, event: dg.DagsterEvent) -> None:
        """A check's verdict (or its step failing), told as a check, not as a step of the run."""
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            verdict = event.asset_check_evaluation_data
            name = f"{verdict.asset_key.to_user_string()}: {verdict.check_name}"
            status = "passed" if verdict.passed else "failed"
            self.report(StepEvent(self.namespace, name, status, self.steps, kind="check"))
        elif event.is_step_failure and event.step_key:
            error = event.step_failure_data.error
            self.report(StepEvent(self.namespace, event.step_key, "failed", self.steps, kind="check",
                                  message=error.message.strip() if error else ""))


def _metadata(result: dg.ExecuteInProcessResult) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for event in result.get_asset_materialization_events():
        materialization = event.step_materialization_data.materialization
        values: dict[str, object] = {k: v.value for k, v in materialization.metadata.items()}
        found[materialization.asset_key.to_user_string()] = values
    return found


def run_ingest_job(job: dg.JobDefinition, instance: dg.DagsterInstance, namespace: str,
                   report: Callable[[StepEvent], None], checks: set[str] | None = None) -> IngestOutcome:
    """One run of the ingest job for `namespace`, recorded in `instance`, its steps reported live;
    `checks` are the step keys of its asset checks (reported as checks)."""
    run_id = str(uuid.uuid4())
    checks = checks or set()
    steps = len([node for node in job.graph.nodes if node.name not in checks])
    watcher = _Watcher(instance, run_id, namespace, checks, steps, report)
    watcher.start()
    try:
        result = job.execute_in_process(
            partition_key=namespace,
            instance=instance,
            tags=namespace_tags(namespace),
            run_id=run_id,
            raise_on_error=False,
            run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}},  # the CLI tells it
        )
    finally:
        watcher.done.set()
        watcher.join()
    failures = [e.step_failure_data.error.message.strip() for e in result.get_step_failure_events()
                if e.step_failure_data.error]
    failed = [f"{c.asset_key.to_user_string()}: {c.check_name}" for c in result.get_asset_check_evaluations()
              if not c.passed]
    return IngestOutcome(namespace, run_id, result.success, _metadata(result), "; ".join(failures), failed)


def ingest(namespaces: list[str], config_path: Path, report: Callable[[StepEvent], None]) -> list[IngestOutcome]:
    """Run the ingest job for each namespace in turn on the instance at $DAGSTER_HOME; stop at a failure."""
    from mnemo_dagster.definitions import build_defs  # the composition root, read after $DAGSTER_HOME is set
    from mnemo_dagster.resources import default_resources

    instance = dg.DagsterInstance.get()
    known = set(instance.get_dynamic_partitions("namespace"))
    instance.add_dynamic_partitions("namespace", [ns for ns in namespaces if ns not in known])
    defs = build_defs(default_resources(str(config_path)))
    job = defs.resolve_job_def("ingest_job")
    checks = {check.node_def.name for check in defs.asset_checks or []}
    outcomes = []
    for namespace in namespaces:
        started = time.monotonic()
        outcome = run_ingest_job(job, instance, namespace, report, checks)
        outcome.metadata["run"] = {"seconds": round(time.monotonic() - started, 1)}
        outcomes.append(outcome)
        if not outcome.success:
            break
    return outcomes
