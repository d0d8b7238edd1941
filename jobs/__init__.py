"""Jobs and schedules."""

import dagster as dg

from assets.ingest import GROUP

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
