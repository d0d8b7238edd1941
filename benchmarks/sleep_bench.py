"""Sleep-mode consolidation time, measured through its Dagster job once that job exists."""

import dataclasses
import pickle
from pathlib import Path
from typing import Any

import dagster as dg

import mnemo_dagster.assets.sleep as sleep_assets
from benchmarks.launched import REPLAY_ENV
from benchmarks.measure import CHANGED_SAMPLES, NAMESPACE, IngestRunner, launched, median_sample, step_times, timed
from mnemo.sleep.consolidate import SleepReport
from mnemo_dagster.assets.sleep import SHARED_PHASES, SPECS

# the job's phases in the order they run; `rest` is what the job's own metadata does not time
PHASES = ("read", "dedup", "view", "communities", "summaries", "salience", "profile", "graph", "checks", "compaction", "rest")


def sleep_job_name(runner: IngestRunner) -> str | None:
    """The consolidation job of the definitions, if sleep mode has landed."""
    names = [job.name for job in runner.defs.resolve_all_job_defs() if not job.name.startswith("__")]
    return next((n for n in names if "sleep" in n or "consolidat" in n), None)


def run_job(runner: IngestRunner, name: str) -> dict[str, Any]:
    """One run of the consolidation job: wall and CPU seconds, seconds per Dagster step and per phase."""
    job = runner.defs.resolve_job_def(name)
    (wall, cpu), result = timed(lambda: job.execute_in_process(partition_key=NAMESPACE, instance=runner.instance))
    if not result.success:
        raise RuntimeError(f"the {name} job failed; see the Dagster output above")
    return {"s": wall, "cpu_s": cpu, "assets_s": step_times(runner.instance, result.run_id), "phases_s": phases(result, wall)}


def phases(result: dg.ExecuteInProcessResult, wall: float) -> dict[str, float]:
    """The job's wall seconds by phase, from the seconds its materializations and checks report: the
    phases the steps share (reading the facts, indexing them, the graph sync), each step, the
    checks together, the compaction; `rest` is the remainder (Dagster's orchestration and events, the
    metadata, closing the graph)."""
    step_of = {spec.key: step for step, spec in SPECS.items()}
    found: dict[str, float] = {}
    for event in result.get_asset_materialization_events():
        materialization = event.step_materialization_data.materialization
        metadata: dict[str, Any] = {key: value.value for key, value in materialization.metadata.items()}
        if materialization.asset_key in step_of and "seconds" in metadata:
            found[step_of[materialization.asset_key]] = float(metadata["seconds"])
        found.update({phase: float(s) for phase, s in (metadata.get("shared_seconds") or {}).items() if phase in SHARED_PHASES})
    checks: list[Any] = [evaluation.metadata.get("seconds") for evaluation in result.get_asset_check_evaluations()]
    if checks:
        found["checks"] = sum(float(c.value) for c in checks if c is not None)
    found["rest"] = max(0.0, wall - sum(found.values()))
    return {phase: found[phase] for phase in PHASES if phase in found}


def first_run(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation of the freshly ingested vault."""
    name = sleep_job_name(runner)
    if name is None:
        return {"status": "not available yet (no sleep-mode job in definitions.py)"}
    run = run_job(runner, name)
    return {"status": "measured", "job": name, "full_s": run["s"], "full_cpu_s": run["cpu_s"], "full_assets_s": run["assets_s"],
            "full_phases_s": run["phases_s"]}


def unchanged(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation again with nothing changed since the last one: what a run costs that has
    nothing to do (the floor under the re-run after one change)."""
    return _sleep_again(runner, "unchanged")


def after_change(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation again after one note changed (and was ingested)."""
    return _sleep_again(runner, "after_change")


def _sleep_again(runner: IngestRunner, label: str) -> dict[str, Any]:
    """The sleep job run once more, its figures named `<label>_s`, `<label>_cpu_s`, ..."""
    name = sleep_job_name(runner)
    if name is None:
        return {}
    run = run_job(runner, name)
    return {f"{label}_{key}": run[key] for key in ("s", "cpu_s", "assets_s", "phases_s")}


def replaying(path: Path) -> None:
    """The sleep job's consolidation replaced, in this process, by the pickled report at `path`."""
    report = pickle.loads(path.read_bytes())
    sleep_assets.consolidate = lambda *args, **kwargs: report


def floor(runner: IngestRunner, work: Path, sleep: dict[str, Any], samples: int = CHANGED_SAMPLES) -> dict[str, Any]:
    """The sleep job with nothing to consolidate: what a re-run costs before any consolidation work.
    A real run (nothing changed since the last) is kept; then its report, with no step timed,
    stands in for the consolidation (`replaying`) while the job runs `samples` times in process
    and `samples` times launched in a fresh process: Dagster's run of the step, the checks, the
    metadata, the compaction's size check, the graph's opening for the checks, the imports."""
    name = sleep_job_name(runner)
    if name is None or not sleep.get("full_s"):
        return {}
    real, kept = sleep_assets.consolidate, []

    def keeping(*args: Any, **kwargs: Any) -> SleepReport:
        kept.append(real(*args, **kwargs))
        return kept[-1]

    sleep_assets.consolidate = keeping
    try:
        run_job(runner, name)
        path = work / "floor-report.pickle"
        path.write_bytes(pickle.dumps(dataclasses.replace(kept[-1], seconds={})))
        replaying(path)
        in_process = [run_job(runner, name) for _ in range(samples)]
    finally:
        sleep_assets.consolidate = real
    here = median_sample(in_process, "s")
    there = median_sample([launched(work, runner.config_path, name, {REPLAY_ENV: str(path)}) for _ in range(samples)], "job_s")
    return {**here, "fraction_of_full": here["s"] / sleep["full_s"],
            "launched": {**there, "job_fraction_of_full": there["job_s"] / sleep["full_s"]}}
