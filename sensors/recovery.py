"""The recovery sensor: while the daemon runs, runs whose process died stop holding anything."""

import dagster as dg

from mnemo_dagster.resources.run_recovery import release_dead_runs


@dg.sensor(
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Marks failed the runs whose process died and frees their pool slots, so queued runs go on.",
)
def run_recovery_sensor(context: dg.SensorEvaluationContext) -> dg.SkipReason:
    """Marks failed the runs whose process died and frees their pool slots, so queued runs go on."""
    released = release_dead_runs(context.instance)
    for run_id in released:
        context.log.warning(f"run {run_id}: its process is gone; marked failed and its pool slots freed")
    return dg.SkipReason(f"released {len(released)} dead run(s)" if released else "no dead run")
