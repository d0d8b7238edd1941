"""The file-drop sensor: a namespace's note folders and chat inbox changed -> one ingest run."""

import time

import dagster as dg

from mnemo.errors import ConfigError
from mnemo.sources.watch import Snapshots, watch
from mnemo.stores.files import NamespaceFiles
from mnemo_dagster.assets.ingest import namespaces
from mnemo_dagster.jobs import ingest_job, namespace_run
from mnemo_dagster.resources import MnemoConfigResource, namespace_files


@dg.sensor(
    job=ingest_job,
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Requests an ingest run for a namespace once its watched folders changed and settled.",
)
def file_drop_sensor(
    context: dg.SensorEvaluationContext, mnemo_config: MnemoConfigResource
) -> dg.SensorResult | dg.SkipReason:
    """Requests an ingest run for a namespace once its watched folders changed and settled."""
    try:
        config = mnemo_config.load()
    except ConfigError as exc:
        return dg.SkipReason(str(exc))
    known = set(namespaces.get_partition_keys(dynamic_partitions_store=context.instance))

    def files(namespace: str) -> NamespaceFiles:
        return namespace_files(config, namespace)  # a namespace another shard holds is refused

    result = watch(config, context.cursor, known, now=time.time(), snapshots=Snapshots(lambda ns: files(ns).root),
                   ingested=lambda ns: files(ns).read_manifest(),
                   refused=lambda ns: {p["path"] for p in files(ns).read_problems() if p.get("skipped")})
    requests = [
        namespace_run(
            run.namespace,
            run.run_key,
            {"mnemo/trigger": "file-drop", "mnemo/fingerprint": run.fingerprint, "mnemo/changes": run.changes.summary},
        )
        for run in result.runs
    ]
    for run in result.runs:
        context.log.info(f"{run.namespace}: {run.changes.summary}")
    skip = None if requests else (
        f"waiting for {', '.join(result.waiting)} to settle" if result.waiting else "no watched file changed"
    )
    return dg.SensorResult(run_requests=requests, cursor=result.cursor, skip_reason=skip)
