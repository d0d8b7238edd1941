"""The inbox sensor: memories written by `remember` start an ingest run of their namespace."""

import json

import dagster as dg

from mnemo.config import validate_namespace
from mnemo.errors import ConfigError
from mnemo.sources.memory_files import inbox_fingerprints
from mnemo_dagster.assets.ingest import namespaces
from mnemo_dagster.jobs import ingest_job, namespace_run
from mnemo_dagster.resources import MnemoConfigResource


@dg.sensor(
    job=ingest_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Starts an ingest run for a namespace when new memories arrive in its inbox.",
)
def memory_inbox_sensor(
    context: dg.SensorEvaluationContext, mnemo_config: MnemoConfigResource
) -> dg.SensorResult | dg.SkipReason:
    """Starts an ingest run for a namespace when new memories arrive in its inbox."""
    try:
        data_dir = mnemo_config.load().data_dir
    except ConfigError as exc:
        return dg.SkipReason(str(exc))
    seen = json.loads(context.cursor or "{}")
    current = {ns: fp for ns, fp in inbox_fingerprints(data_dir).items() if _valid(ns)}
    changed = sorted(ns for ns, fp in current.items() if seen.get(ns) != fp)
    if not changed:
        return dg.SkipReason("no new memories in any inbox")
    known = set(namespaces.get_partition_keys(dynamic_partitions_store=context.instance))
    added = [ns for ns in changed if ns not in known]
    return dg.SensorResult(
        run_requests=[namespace_run(ns, f"inbox-{ns}-{current[ns]}") for ns in changed],
        dynamic_partitions_requests=[namespaces.build_add_request(added)] if added else [],
        cursor=json.dumps(current, sort_keys=True),
    )


def _valid(name: str) -> bool:
    try:
        validate_namespace(name)
    except ConfigError:
        return False
    return True
