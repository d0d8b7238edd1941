"""Sleep-mode consolidation time, measured through its Dagster job once that job exists."""

import time
from typing import Any

from benchmarks.measure import NAMESPACE, IngestRunner


def sleep_job_name(runner: IngestRunner) -> str | None:
    """The consolidation job of the definitions, if sleep mode has landed."""
    names = [job.name for job in runner.defs.resolve_all_job_defs() if not job.name.startswith("__")]
    return next((n for n in names if "sleep" in n or "consolidat" in n), None)


def _run(runner: IngestRunner, name: str) -> float:
    job = runner.defs.resolve_job_def(name)
    start = time.perf_counter()
    result = job.execute_in_process(partition_key=NAMESPACE, instance=runner.instance)
    if not result.success:
        raise RuntimeError(f"the {name} job failed; see the Dagster output above")
    return time.perf_counter() - start


def first_run(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation of the freshly ingested vault."""
    name = sleep_job_name(runner)
    if name is None:
        return {"status": "not available yet (no sleep-mode job in definitions.py)"}
    return {"status": "measured", "job": name, "full_s": _run(runner, name)}


def after_change(runner: IngestRunner) -> dict[str, Any]:
    """Consolidation again after the incremental edits (one changed, one added, one deleted note)."""
    name = sleep_job_name(runner)
    if name is None:
        return {}
    return {"after_change_s": _run(runner, name)}
