"""Jobs and schedules."""

import dagster as dg

from mnemo.config import NAMESPACE_TAG, SleepConfig
from mnemo_dagster.assets.ingest import GROUP
from mnemo_dagster.assets.sleep import GROUP as SLEEP_GROUP
from mnemo_dagster.assets.writeback import GROUP as WRITEBACK_GROUP

# Every step of these jobs runs in the run's own process. Dagster's default executor starts a
# process per step, each importing Dagster, the stores and (for the vector steps) the model
# again: a re-ingest of a 10k-note vault with nothing changed took 39.9 s that way against
# 4.1 s in one process (docs/SCALING.md). The steps mostly follow one another anyway, and
# graph writers are serialized by the `graph_writer` pool either way.
EXECUTOR = dg.in_process_executor


def namespace_tags(namespace: str) -> dict[str, str]:
    """The tags every run of `namespace` carries: dagster.yaml's run queue admits one run per value of
    NAMESPACE_TAG, so a second run of a namespace waits in the queue until the first ends."""
    return {NAMESPACE_TAG: namespace}


def namespace_run(namespace: str, run_key: str, tags: dict[str, str] | None = None) -> dg.RunRequest:
    """A run request for one namespace's partition, tagged for the per-namespace limit."""
    return dg.RunRequest(partition_key=namespace, run_key=run_key, tags={**(tags or {}), **namespace_tags(namespace)})

ingest_job = dg.define_asset_job(
    "ingest_job",
    executor_def=EXECUTOR,
    selection=dg.AssetSelection.groups(GROUP),
    description="Scan, chunk, embed and extract a namespace's sources into its graph and vector stores.",
)

reextraction_job = dg.define_asset_job(
    "reextraction_job",
    executor_def=EXECUTOR,
    selection=dg.AssetSelection.assets("llm_extractions", "entity_graph"),
    config={"ops": {"llm_extractions": {"config": {"reextract": True}}}},
    description="After an ontology version change: re-extract with the LLM only the chunks the change affects.",
)

sleep_mode_job = dg.define_asset_job(
    "sleep_mode_job",
    executor_def=EXECUTOR,
    selection=dg.AssetSelection.groups(SLEEP_GROUP),
    description="Consolidate a namespace's memory: dedup, communities, summaries, salience, self profile; "
    "compact its graph when grown.",
)


sleep_writeback_job = dg.define_asset_job(
    "sleep_writeback_job",
    executor_def=EXECUTOR,
    selection=dg.AssetSelection.groups(SLEEP_GROUP, WRITEBACK_GROUP),
    description="Sleep mode, then write-back: what the notes do not say yet written into them, generated pages "
    "rebuilt (undoable).",
)


def nightly_schedule_for(settings: SleepConfig, writeback: bool = False) -> dg.ScheduleDefinition:
    """The nightly run for every namespace, at the configured cron and timezone: sleep mode,
    followed by write-back into the notes when `writeback.nightly` is on."""
    job = sleep_writeback_job if writeback else sleep_mode_job
    what = "sleep mode, then write-back," if writeback else "sleep mode"

    @dg.schedule(job=job, cron_schedule=settings.cron, execution_timezone=settings.timezone,
                 name="nightly_sleep_schedule", description=f"Runs {what} for every namespace each night.")
    def nightly_sleep_schedule(context: dg.ScheduleEvaluationContext) -> list[dg.RunRequest]:
        """Runs sleep mode (and write-back when turned on) for every namespace each night."""
        stamp = context.scheduled_execution_time.strftime("%Y-%m-%d")
        return [namespace_run(ns, f"sleep-{ns}-{stamp}")
                for ns in sorted(context.instance.get_dynamic_partitions("namespace"))]

    return nightly_sleep_schedule
