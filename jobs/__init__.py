"""Jobs and schedules."""

import dagster as dg

from assets.ingest import GROUP
from assets.sleep import GROUP as SLEEP_GROUP
from mnemo.sleep.settings import SleepConfig

ingest_job = dg.define_asset_job(
    "ingest_job",
    selection=dg.AssetSelection.groups(GROUP),
    description="Scan, chunk, embed and extract a namespace's sources into its graph and vector stores.",
)

reextraction_job = dg.define_asset_job(
    "reextraction_job",
    selection=dg.AssetSelection.assets("llm_extractions", "entity_graph"),
    config={"ops": {"llm_extractions": {"config": {"reextract": True}}}},
    description="After an ontology version change: re-extract with the LLM only the chunks the change affects.",
)

sleep_mode_job = dg.define_asset_job(
    "sleep_mode_job",
    selection=dg.AssetSelection.groups(SLEEP_GROUP),
    description="Consolidate a namespace's memory: dedup, communities, summaries, salience, self profile.",
)


def nightly_schedule_for(settings: SleepConfig) -> dg.ScheduleDefinition:
    """The nightly sleep-mode run for every namespace, at the configured cron and timezone."""

    @dg.schedule(job=sleep_mode_job, cron_schedule=settings.cron, execution_timezone=settings.timezone,
                 name="nightly_sleep_schedule", description="Runs sleep mode for every namespace each night.")
    def nightly_sleep_schedule(context: dg.ScheduleEvaluationContext) -> list[dg.RunRequest]:
        """Runs sleep mode for every namespace each night."""
        stamp = context.scheduled_execution_time.strftime("%Y-%m-%d")
        return [dg.RunRequest(partition_key=ns, run_key=f"sleep-{ns}-{stamp}")
                for ns in sorted(context.instance.get_dynamic_partitions("namespace"))]

    return nightly_sleep_schedule
