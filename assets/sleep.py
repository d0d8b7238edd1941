"""Sleep mode assets: nightly consolidation of a namespace's memory, in order."""

from datetime import datetime, timezone

import dagster as dg

from assets.ingest import GRAPH_POOL, _table, entity_graph, namespaces
from mnemo.pipeline import entity_rows
from mnemo.sleep.abstractive import SleepWriter, writer_for
from mnemo.sleep.consolidate import run_communities, run_profile, run_salience, run_summaries
from mnemo.sleep.merges import canonical_facts, sleep_facts, sync_sleep_tables
from mnemo.sleep.picture import salience_histogram
from mnemo.sleep.resolve import run_dedup
from resources import EmbedderResource, GraphResource, MnemoConfigResource, VectorResource

GROUP = "sleep_mode"
NOW_TAG = "mnemo/now"


def run_time(context: dg.AssetExecutionContext | dg.AssetCheckExecutionContext) -> datetime:
    """The run's clock: the `mnemo/now` tag (ISO time, for replays), else now in UTC."""
    stamp = context.run.tags.get(NOW_TAG)
    when = datetime.fromisoformat(stamp) if stamp else datetime.now(timezone.utc)
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def _sync(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource) -> int:
    files = mnemo_config.files(context.partition_key)
    return sync_sleep_tables(files, graph.store(context.partition_key), run_id=context.run_id).writes


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"kuzu", "lancedb"}, deps=[entity_graph], pool=GRAPH_POOL)
def entity_merges(
    context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource,
    vectors: VectorResource, embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Duplicate entities merged (logged, undoable) or queued for review."""
    namespace = context.partition_key
    files = mnemo_config.files(namespace)
    store = vectors.store(namespace)
    result = run_dedup(files, mnemo_config.load().sleep, store, run_time(context).isoformat(timespec="seconds"), sleep_facts(files))
    writes = _sync(context, mnemo_config, graph)
    if result.merges:
        store.sync("entities", entity_rows(canonical_facts(files)), embedder.embedder())
    rows = [{"canonical": m.canonical, "merged": m.merged, "score": m.score, "why": ", ".join(m.reasons)} for m in result.merges]
    return dg.MaterializeResult(metadata={
        "merges": len(result.merges), "queued": result.queued, "queue_size": result.queue_size,
        "examined": result.examined, "candidates": result.candidates, "graph_writes": writes,
        "preview": dg.MetadataValue.md(_table(rows, ["canonical", "merged", "score", "why"])),
    })


def _writer(mnemo_config: MnemoConfigResource) -> SleepWriter | None:
    settings = mnemo_config.load()
    return writer_for(settings.llm, settings.sleep.llm)


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"kuzu", "openai"}, deps=[entity_merges], pool=GRAPH_POOL)
def entity_communities(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource) -> dg.MaterializeResult:
    """Communities of entities (Leiden, two levels) with stable ids and cited summaries; abstractions with an LLM."""
    stats = run_communities(mnemo_config.files(context.partition_key), _writer(mnemo_config))
    return dg.MaterializeResult(metadata={
        "communities": stats.communities, "levels": stats.levels, "modularity": stats.modularity,
        "summarized": stats.summarized, "reused": stats.reused, "abstractions": stats.concepts,
        "instance_links": stats.instance_links, "llm_failures": stats.llm_failures,
        "graph_writes": _sync(context, mnemo_config, graph),
    })


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"kuzu"}, deps=[entity_merges], pool=GRAPH_POOL)
def episodic_summaries(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource) -> dg.MaterializeResult:
    """Day, week and month summaries of episodic memory; only changed periods are re-made."""
    stats = run_summaries(mnemo_config.files(context.partition_key), mnemo_config.load().sleep, run_time(context))
    return dg.MaterializeResult(metadata={
        "made": stats.made, "reused": stats.reused, "days": stats.days, "weeks": stats.weeks,
        "months": stats.months, "graph_writes": _sync(context, mnemo_config, graph),
    })


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"kuzu", "python"}, deps=[entity_communities, episodic_summaries], pool=GRAPH_POOL)
def salience_scores(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource) -> dg.MaterializeResult:
    """Salience of entities and episodic chunks: decay, reinforcement by access, fading, promotion."""
    files = mnemo_config.files(context.partition_key)
    stats = run_salience(files, mnemo_config.load().sleep, run_time(context))
    picture = salience_histogram(files, mnemo_config.load().sleep.fade_below)
    return dg.MaterializeResult(metadata={
        "items": stats.items, "faded": stats.faded, "newly_faded": stats.newly_faded, "promoted": stats.promoted,
        "top_of_mind": dg.MetadataValue.json(stats.top_of_mind or []),
        "distribution": dg.MetadataValue.path(str(picture)), "graph_writes": _sync(context, mnemo_config, graph),
    })


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"kuzu"}, deps=[salience_scores], pool=GRAPH_POOL)
def self_profile(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource) -> dg.MaterializeResult:
    """A versioned portrait of the namespace's own person: traits, current state, recent episodes."""
    namespace = context.partition_key
    stats = run_profile(mnemo_config.files(namespace), mnemo_config.load().namespace(namespace).self_name, run_time(context),
                        _writer(mnemo_config))
    return dg.MaterializeResult(metadata={
        "self": stats.entity if stats else "(no self entity found)", "version": stats.version if stats else 0,
        "changed": bool(stats and stats.changed), "graph_writes": _sync(context, mnemo_config, graph),
    })


sleep_assets = [entity_merges, entity_communities, episodic_summaries, salience_scores, self_profile]
