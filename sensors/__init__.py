"""Sensors: keep namespace partitions in step with the configuration."""

import dagster as dg

from mnemo.errors import ConfigError
from mnemo_dagster.assets.ingest import namespaces
from mnemo_dagster.jobs import ingest_job, namespace_run
from mnemo_dagster.resources import MnemoConfigResource


@dg.sensor(
    job=ingest_job,
    minimum_interval_seconds=60,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Adds a partition for each namespace in mnemo.yaml and runs its first ingest.",
)
def namespaces_sensor(
    context: dg.SensorEvaluationContext, mnemo_config: MnemoConfigResource
) -> dg.SensorResult | dg.SkipReason:
    """Adds a partition for each namespace in mnemo.yaml and runs its first ingest."""
    try:
        configured = sorted(mnemo_config.load().namespaces)
    except ConfigError as exc:
        return dg.SkipReason(str(exc))
    known = set(namespaces.get_partition_keys(dynamic_partitions_store=context.instance))
    added = [ns for ns in configured if ns not in known]
    if not added:
        return dg.SkipReason("every configured namespace already has a partition")
    return dg.SensorResult(
        run_requests=[namespace_run(ns, f"first-ingest-{ns}") for ns in added],
        dynamic_partitions_requests=[namespaces.build_add_request(added)],
    )
