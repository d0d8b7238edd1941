"""Sleep mode assets: nightly consolidation of a namespace's memory, in order, computed by one
step (one read of the facts, one graph sync) that materializes whichever of them are selected
and evaluates the selected checks on them."""

import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import dagster as dg

from mnemo.config import MnemoConfig
from mnemo.errors import StoreLocked
from mnemo.ingest.pipeline import entity_rows
from mnemo.maintenance.compaction import compact_stores
from mnemo.maintenance.forget import ForgetStores
from mnemo.memories.purge import purge_expired
from mnemo.sleep.abstractive import writer_for
from mnemo.sleep.consolidate import STEPS, SleepReport, consolidate
from mnemo.sleep.merges import SLEEP_TABLES, STEP_TABLES, canonical_entities
from mnemo.sleep.picture import salience_histogram
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from mnemo_dagster.assets.ingest import GRAPH_POOL, entity_graph, namespaces
from mnemo_dagster.assets.sleep_checks import check_results, check_specs
from mnemo_dagster.resources import EmbedderResource, GraphResource, MnemoConfigResource, VectorResource

GROUP = "sleep_mode"
NOW_TAG = "mnemo/now"


def run_time(context: dg.AssetExecutionContext | dg.AssetCheckExecutionContext) -> datetime:
    """The run's clock: the `mnemo/now` tag (ISO time, for replays), else now in UTC."""
    stamp = context.run.tags.get(NOW_TAG)
    when = datetime.fromisoformat(stamp) if stamp else datetime.now(UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _spec(key: str, deps: list[Any], kinds: set[str], description: str) -> dg.AssetSpec:
    return dg.AssetSpec(key, deps=deps, group_name=GROUP, kinds=kinds, description=description)


SPECS = {  # sleep step -> the asset it materializes
    "dedup": _spec(
        "entity_merges",
        [entity_graph],
        {"kuzu", "lancedb"},
        "Duplicate entities merged (logged, undoable) or queued for review.",
    ),
    "communities": _spec(
        "entity_communities",
        ["entity_merges"],
        {"kuzu", "python"},
        "Communities of entities (Leiden, two levels) with stable ids and cited summaries; abstractions with an LLM.",
    ),
    "summaries": _spec(
        "episodic_summaries",
        ["entity_merges"],
        {"kuzu"},
        "Day, week and month summaries of episodic memory; only changed periods are re-made.",
    ),
    "salience": _spec(
        "salience_scores",
        ["entity_communities", "episodic_summaries"],
        {"kuzu", "python"},
        "Salience of entities and episodic chunks: decay, reinforcement by access, fading, promotion.",
    ),
    "profile": _spec(
        "self_profile",
        ["salience_scores"],
        {"kuzu"},
        "A versioned portrait of the namespace's own person: traits, current state, recent episodes.",
    ),
    "compaction": _spec(
        "store_compaction",
        ["self_profile"],
        {"kuzu", "lancedb"},
        "The graph rebuilt from the memory files once its file has grown to `sleep.compact_growth` times "
        "its size after the last rebuild (Kùzu keeps the pages an update leaves behind); vector tables "
        "that gained 32+ fragments since their last compaction compacted.",
    ),
}
SHARED_PHASES = (
    "read",
    "view",
    "graph",
)  # the run's phases no step owns: reading the facts, indexing them, the graph sync
COMPACTION_WAIT_SECONDS = 60.0  # for writers outside Dagster (the CLI); past it compaction waits for the next night


@dg.multi_asset(specs=list(SPECS.values()), check_specs=check_specs({step: spec.key for step, spec in SPECS.items()}),
                partitions_def=namespaces, can_subset=True, pool=GRAPH_POOL, name="sleep_mode")
def sleep_mode(
    context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource,
    vectors: VectorResource, embedder: EmbedderResource,
) -> Iterator[dg.MaterializeResult | dg.AssetCheckResult]:
    """Consolidates a namespace's memory: the selected sleep steps over one read of the facts, then one graph
    sync; the selected checks, in the same opening of the graph; then the stores are compacted if they have
    grown enough (`store_compaction`). With only checks selected, outside a partitioned run, the checks run
    for every known namespace."""
    checks = context.selected_asset_check_keys
    selected = [step for step, spec in SPECS.items() if spec.key in context.selected_asset_keys]
    if not selected:
        yield from check_results(context, mnemo_config, graph, run_time(context).date(), checks)
        return
    namespace = context.partition_key
    settings = mnemo_config.load()
    files = mnemo_config.files(namespace)
    store = vectors.store(namespace)
    steps = [step for step in selected if step in STEPS]
    graph_store = graph.store(namespace)
    if steps:  # expired memories go first, as `mnemo forget --expired` removes them
        stores = ForgetStores(settings, files, store, graph_store, embedder.embedder(namespace))
        purged = purge_expired(stores, run_time(context))
        context.log.info(f"purged {len(purged.items)} expired memories")
    with graph_store.session():  # closed before a compaction, which may replace the database's file
        if steps:
            yield from _consolidated(context, files, graph_store, store, embedder, settings, steps)
        yield from check_results(context, mnemo_config, graph, run_time(context).date(), checks)
    if "compaction" in selected:
        yield _compacted(context, files, graph_store, store, settings)


def _consolidated(
    context: dg.AssetExecutionContext,
    files: NamespaceFiles,
    graph: GraphStore,
    store: VectorStore,
    embedder: EmbedderResource,
    settings: MnemoConfig,
    steps: list[str],
) -> Iterator[dg.MaterializeResult]:
    report = consolidate(
        files,
        graph,
        settings.sleep,
        run_time(context),
        settings.namespace(context.partition_key).self_name,
        store,
        context.run_id,
        writer_for(settings.llm, settings.sleep.llm),
        steps=steps,
    )
    seconds = dict(report.seconds)
    if report.dedup and report.dedup.merges:  # the merged entities' vectors, part of dedup's time
        start = time.perf_counter()
        store.sync("entities", entity_rows(canonical_entities(files)), embedder.embedder(files.namespace))
        seconds["dedup"] = round(seconds.get("dedup", 0.0) + time.perf_counter() - start, 3)
    shared = dg.MetadataValue.json({phase: report.seconds[phase] for phase in SHARED_PHASES if phase in report.seconds})
    for step in steps:
        owned = STEP_TABLES.get(step, frozenset()) | (
            STEP_TABLES["abstractions"] if step == "communities" else frozenset()
        )
        writes = sum(
            n for t, n in report.table_writes.items() if (t in owned if step != "dedup" else t not in SLEEP_TABLES)
        )
        metadata = {
            **METADATA[step](report, files, settings),
            "graph_writes": writes,
            "seconds": seconds.get(step, 0.0),
            "shared_seconds": shared,
        }
        yield dg.MaterializeResult(asset_key=SPECS[step].key, metadata=metadata)


def _compacted(
    context: dg.AssetExecutionContext,
    files: NamespaceFiles,
    graph: GraphStore,
    vectors: VectorStore,
    settings: MnemoConfig,
) -> dg.MaterializeResult:
    """The stores compacted when they have grown enough (`seconds`: the whole step, the size checks
    included); stores busy past the wait are left for the next run."""
    start = time.perf_counter()
    try:
        done = compact_stores(
            files, graph, vectors, settings.sleep.compact_growth, context.run_id, COMPACTION_WAIT_SECONDS
        )
    except StoreLocked as exc:
        context.log.warning(f"store compaction skipped: {exc}")
        return dg.MaterializeResult(
            asset_key=SPECS["compaction"].key,
            metadata={"graph_rebuilt": False, "skipped": str(exc), "seconds": _since(start)},
        )
    mb = 1024 * 1024
    metadata: dict[str, Any] = {
        "graph_rebuilt": done.rebuilt,
        "graph_mb": round(done.size / mb, 1),
        "graph_after_mb": round(done.size_after / mb, 1),
        "graph_base_mb": round(done.base / mb, 1),
        "graph_growth": done.growth,
        "rebuild_at_growth": settings.sleep.compact_growth,
        "rebuild_seconds": done.seconds,
        "vector_tables_compacted": dg.MetadataValue.json(
            {name: {"fragments": before, "fragments_after": after} for name, (before, after) in done.tables.items()}
        ),
        "seconds": _since(start),
    }
    return dg.MaterializeResult(asset_key=SPECS["compaction"].key, metadata=metadata)


def _since(start: float) -> float:
    return round(time.perf_counter() - start, 3)


def _merges(report: SleepReport, files: NamespaceFiles, settings: MnemoConfig) -> dict[str, Any]:
    result = report.dedup
    assert result is not None
    why = Counter(reason for m in result.merges for reason in m.reasons)  # no entity names (docs/ARCHITECTURE.md)
    return {
        "merges": len(result.merges),
        "queued": result.queued,
        "queue_size": result.queue_size,
        "examined": result.examined,
        "candidates": result.candidates,
        "reasons": dg.MetadataValue.json(dict(why)),
    }


def _communities(report: SleepReport, files: NamespaceFiles, settings: MnemoConfig) -> dict[str, Any]:
    stats = report.communities
    assert stats is not None
    return {"communities": stats.communities, "levels": stats.levels, "modularity": stats.modularity,
            "summarized": stats.summarized, "reused": stats.reused, "abstractions": stats.concepts,
            "instance_links": stats.instance_links, "llm_failures": stats.llm_failures,
            "below_cohesion_floor": stats.below_floor,
            "cohesion": dg.MetadataValue.json([{k: c[k] for k in ("id", "level", "members", "cohesion")}
                                               for c in sorted(stats.cohesion, key=lambda c: c["cohesion"])])}


def _summaries(report: SleepReport, files: NamespaceFiles, settings: MnemoConfig) -> dict[str, Any]:
    stats = report.summaries
    assert stats is not None
    return {
        "made": stats.made,
        "reused": stats.reused,
        "days": stats.days,
        "weeks": stats.weeks,
        "months": stats.months,
    }


def _salience(report: SleepReport, files: NamespaceFiles, settings: MnemoConfig) -> dict[str, Any]:
    stats = report.salience
    assert stats is not None
    picture = salience_histogram(files, settings.sleep.fade_below)
    return {"items": stats.items, "faded": stats.faded, "newly_faded": stats.newly_faded, "promoted": stats.promoted,
            "top_of_mind": len(stats.top_of_mind or []), "distribution": dg.MetadataValue.path(str(picture))}


def _profile(report: SleepReport, files: NamespaceFiles, settings: MnemoConfig) -> dict[str, Any]:
    stats = report.profile
    return {"self": stats.entity if stats else "(no self entity found)", "version": stats.version if stats else 0,
            "changed": bool(stats and stats.changed)}


METADATA: dict[str, Callable[[SleepReport, NamespaceFiles, MnemoConfig], dict[str, Any]]] = {
    "dedup": _merges, "communities": _communities, "summaries": _summaries, "salience": _salience, "profile": _profile,
}

sleep_assets = [sleep_mode]
LLM_KIND = "openai"  # the kind an asset that calls the configured LLM shows (an OpenAI-compatible endpoint)


def sleep_assets_for(settings: MnemoConfig) -> list[dg.AssetsDefinition]:
    """The sleep assets; `entity_communities` shows the LLM's kind only when mnemo.yaml configures
    an LLM for sleep mode (it writes the communities' abstractions then)."""
    if settings.llm is None or not settings.sleep.llm:
        return sleep_assets
    communities = SPECS["communities"].key
    return list(dg.map_asset_specs(
        lambda spec: spec.replace_attributes(kinds={*spec.kinds, LLM_KIND}) if spec.key == communities else spec,
        sleep_assets,
    ))
