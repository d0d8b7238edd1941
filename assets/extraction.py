"""The LLM extraction asset: grounded, ontology-constrained entities and relations per chunk."""

import dagster as dg

from mnemo_dagster.assets.ingest import GROUP, _table, entity_vectors, extractions, ingest_pipeline, namespaces
from mnemo_dagster.resources import EmbedderResource, GraphResource, LLMResource, MnemoConfigResource, VectorResource


class LLMExtractionConfig(dg.Config):
    reextract: bool = False  # re-extract chunks whose cached answers an ontology change affects


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"python", "openai"}, deps=[extractions, entity_vectors])
def llm_extractions(
    context: dg.AssetExecutionContext, config: LLMExtractionConfig, mnemo_config: MnemoConfigResource,
    llm: LLMResource, graph: GraphResource, vectors: VectorResource, embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Entities and typed relations an LLM extracted from new chunks, grounded in known entities (only with `llm:`)."""
    ontology = mnemo_config.ontology()
    extractor = llm.extractor(ontology)
    pipeline = ingest_pipeline(context, mnemo_config, graph, vectors, embedder, extractor)
    stats = pipeline.llm_extractions(config.reextract)
    if extractor is None:
        return dg.MaterializeResult(metadata={"configured": False, "requests": 0})
    for item in stats.pending:
        context.log.warning(f"chunk {item['chunk_id']}: LLM extraction pending ({item['reason']})")
    usage = extractor.usage
    return dg.MaterializeResult(metadata={
        "configured": True, "model": extractor.model, "mode": extractor.mode,
        "prompt_version": extractor.prompt_version,
        "ontology_version": ontology.version, "chunks": stats.chunks, "extracted": stats.extracted,
        "cached": stats.cached, "stale_reused": stats.stale_reused, "carried_over": stats.carried_over,
        "pending": stats.failed, "dropped_items": stats.dropped, "ungrounded_items": stats.ungrounded,
        "requests": usage.requests,
        "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
        "estimated_cost_usd": round(usage.cost(extractor.settings), 6),
        "pending_chunks": dg.MetadataValue.md(_table(stats.pending, ["chunk_id", "reason"])),
    })


extraction_assets = [llm_extractions]
