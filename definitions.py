"""The one composition root: every asset, check, job, sensor and resource is wired here."""

import dagster as dg

from mnemo.config import MnemoConfig
from mnemo.runtime import keep_out_of_collections
from mnemo_dagster.assets.extraction import extraction_assets
from mnemo_dagster.assets.ingest import ingest_assets
from mnemo_dagster.assets.ingest_checks import ingest_checks
from mnemo_dagster.assets.sleep import sleep_assets_for
from mnemo_dagster.assets.writeback import writeback_assets
from mnemo_dagster.jobs import ingest_job, nightly_schedule_for, reextraction_job, sleep_mode_job, sleep_writeback_job
from mnemo_dagster.resources import MnemoConfigResource, default_resources
from mnemo_dagster.sensors import namespaces_sensor
from mnemo_dagster.sensors.file_drop import file_drop_sensor
from mnemo_dagster.sensors.memories import memory_inbox_sensor
from mnemo_dagster.sensors.recovery import run_recovery_sensor


def _settings(resources: dict[str, dg.ConfigurableResource]) -> MnemoConfig:
    """mnemo.yaml's settings for the schedule: defaults while there is no file (the sensors say so);
    an invalid file fails loading the definitions with a ConfigError naming the file and field."""
    config = resources.get("mnemo_config")
    if not isinstance(config, MnemoConfigResource) or not config.path().is_file():
        return MnemoConfig()
    return config.load()


def build_defs(resources: dict[str, dg.ConfigurableResource] | None = None) -> dg.Definitions:
    """Definitions with the given resources (tests pass temporary stores)."""
    resources = resources if resources is not None else default_resources()
    settings = _settings(resources)
    return dg.Definitions(
        assets=[*ingest_assets, *extraction_assets, *writeback_assets, *sleep_assets_for(settings)],
        asset_checks=ingest_checks,
        jobs=[ingest_job, reextraction_job, sleep_mode_job, sleep_writeback_job],
        schedules=[nightly_schedule_for(settings.sleep, writeback=settings.writeback.nightly)],
        sensors=[namespaces_sensor, file_drop_sensor, memory_inbox_sensor, run_recovery_sensor],
        resources=resources,
    )


defs = build_defs()
keep_out_of_collections()  # what importing the definitions made lives as long as the process: full collections skip it
