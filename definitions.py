"""The one composition root: every asset, check, job, sensor and resource is wired here."""

import dagster as dg

from assets.ingest_checks import ingest_checks
from assets.extraction import extraction_assets
from assets.ingest import ingest_assets
from assets.sleep import sleep_assets_for
from assets.writeback import writeback_assets
from jobs import ingest_job, nightly_schedule_for, reextraction_job, sleep_mode_job, sleep_writeback_job
from mnemo.runtime import keep_out_of_collections
from mnemo.errors import ConfigError
from mnemo.config import MnemoConfig
from resources import MnemoConfigResource, default_resources
from sensors import namespaces_sensor
from sensors.file_drop import file_drop_sensor
from sensors.memories import memory_inbox_sensor
from sensors.recovery import run_recovery_sensor


def _settings(resources: dict[str, dg.ConfigurableResource]) -> MnemoConfig:
    """mnemo.yaml's settings for the schedule (defaults when there is no valid file)."""
    config = resources.get("mnemo_config")
    try:
        return config.load() if isinstance(config, MnemoConfigResource) else MnemoConfig()
    except ConfigError:
        return MnemoConfig()


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
