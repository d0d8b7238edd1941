"""Sleep-mode consolidation time, measured through its Dagster job once that job exists."""

from typing import Any

import dagster as dg

from assets.sleep import SHARED_PHASES, SPECS
from benchmarks.measure import NAMESPACE, IngestRunner, step_times, timed

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
        metadata = {key: value.value for key, value in materialization.metadata.items()}
        if materialization.asset_key in step_of and "seconds" in metadata:
            found[step_of[materialization.asset_key]] = float(metadata["seconds"])
        found.update({phase: float(s) for phase, s in (metadata.get("shared_seconds") or {}).items() if phase in SHARED_PHASES})
    checks = [evaluation.metadata.get("seconds") for evaluation in result.get_asset_check_evaluations()]
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
    name = sleep_job_name(runner)
    if name is None:
        return {}
    run = run_job(runner, name)
    return {"unchanged_s": run["s"], "unchanged_cpu_s": run["cpu_s"], "unchanged_assets_s": run["assets_s"],
            "unchanged_phases_s": run["phases_s"]}


def after_change(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation again after one note changed (and was ingested)."""
    name = sleep_job_name(runner)
    if name is None:
        return {}
    run = run_job(runner, name)
    return {"after_change_s": run["s"], "after_change_cpu_s": run["cpu_s"], "after_change_assets_s": run["assets_s"],
            "after_change_phases_s": run["phases_s"]}
