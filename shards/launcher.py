"""The run launcher of the many-machine instance: dagster-celery's, with every run of a namespace
sent to the Celery queue of the shard that holds it (mnemo.yaml's `shards:` and `placement:`).

The queue is chosen here, at launch, from the run's `mnemo/namespace` or `dagster/partition` tag,
so a run requested by a sensor, the nightly schedule, `mnemo ingest` or the UI goes to the same
place. The whole run then executes in that shard's worker with the job's in-process executor:
every step of it runs on the machine whose disk holds the namespace.
"""

import dagster as dg
from dagster_celery.launcher import CeleryRunLauncher
from dagster_celery.tags import DAGSTER_CELERY_QUEUE_TAG

from mnemo.config import NAMESPACE_TAG, load_config  # not from `jobs`: the daemon needs no pipeline

PARTITION_TAG = "dagster/partition"


def run_namespace(run: dg.DagsterRun) -> str | None:
    """The namespace a run works on: its mnemo tag, else its partition (namespaces are the partitions)."""
    return run.tags.get(NAMESPACE_TAG) or run.tags.get(PARTITION_TAG)


def shard_queue(run: dg.DagsterRun) -> str | None:
    """The Celery queue of the shard holding the run's namespace (None: no namespace, or unsharded)."""
    namespace = run_namespace(run)
    return load_config().queue_of(namespace) if namespace else None


class ShardRunLauncher(CeleryRunLauncher):
    """Launches each run as a Celery task on its namespace's shard queue (the `dagster-celery/queue`
    tag, added to the run so the UI shows where it went); runs without a namespace go to
    `default_queue`."""

    def launch_run(self, context):  # dagster's signature
        run = context.dagster_run
        queue = shard_queue(run)
        if queue and run.tags.get(DAGSTER_CELERY_QUEUE_TAG) != queue:
            self._instance.add_run_tags(run.run_id, {DAGSTER_CELERY_QUEUE_TAG: queue})
            run = self._instance.get_run_by_id(run.run_id) or run
            context = context._replace(dagster_run=run)
        super().launch_run(context)
