"""Sleep-mode consolidation time, measured through its Dagster job once that job exists."""

from typing import Any

from benchmarks.measure import NAMESPACE, IngestRunner, step_times, timed


def sleep_job_name(runner: IngestRunner) -> str | None:
    """The consolidation job of the definitions, if sleep mode has landed."""
    names = [job.name for job in runner.defs.resolve_all_job_defs() if not job.name.startswith("__")]
    return next((n for n in names if "sleep" in n or "consolidat" in n), None)


def run_job(runner: IngestRunner, name: str) -> dict[str, Any]:
    """One run of the consolidation job: wall and CPU seconds, seconds per asset."""
    job = runner.defs.resolve_job_def(name)
    (wall, cpu), result = timed(lambda: job.execute_in_process(partition_key=NAMESPACE, instance=runner.instance))
    if not result.success:
        raise RuntimeError(f"the {name} job failed; see the Dagster output above")
    return {"s": wall, "cpu_s": cpu, "assets_s": step_times(runner.instance, result.run_id)}


def first_run(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation of the freshly ingested vault."""
    name = sleep_job_name(runner)
    if name is None:
        return {"status": "not available yet (no sleep-mode job in definitions.py)"}
    run = run_job(runner, name)
    return {"status": "measured", "job": name, "full_s": run["s"], "full_cpu_s": run["cpu_s"], "full_assets_s": run["assets_s"]}


def unchanged(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation again with nothing changed since the last one: what a run costs that has
    nothing to do (the floor under the re-run after one change)."""
    name = sleep_job_name(runner)
    if name is None:
        return {}
    run = run_job(runner, name)
    return {"unchanged_s": run["s"], "unchanged_cpu_s": run["cpu_s"], "unchanged_assets_s": run["assets_s"]}


def after_change(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation again after one note changed (and was ingested)."""
    name = sleep_job_name(runner)
    if name is None:
        return {}
    run = run_job(runner, name)
    return {"after_change_s": run["s"], "after_change_cpu_s": run["cpu_s"], "after_change_assets_s": run["assets_s"]}
