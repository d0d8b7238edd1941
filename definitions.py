"""The one composition root: every asset, check, job, sensor and resource is wired here."""

import dagster as dg

from assets.checks import ingest_checks
from assets.extraction import extraction_assets
from assets.ingest import ingest_assets
from assets.writeback import writeback_assets
from jobs import ingest_job, reextraction_job
from resources import default_resources
from sensors import namespaces_sensor
from sensors.file_drop import file_drop_sensor


def build_defs(resources: dict[str, dg.ConfigurableResource] | None = None) -> dg.Definitions:
    """Definitions with the given resources (tests pass temporary stores)."""
    return dg.Definitions(
        assets=[*ingest_assets, *extraction_assets, *writeback_assets],
        asset_checks=ingest_checks,
        jobs=[ingest_job, reextraction_job],
        sensors=[namespaces_sensor, file_drop_sensor],
        resources=resources if resources is not None else default_resources(),
    )


defs = build_defs()
