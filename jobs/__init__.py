"""Jobs and schedules."""

import dagster as dg

from assets.ingest import GROUP

ingest_job = dg.define_asset_job(
    "ingest_job",
    selection=dg.AssetSelection.groups(GROUP),
    description="Scan, chunk, embed and extract a namespace's sources into its graph and vector stores.",
)
