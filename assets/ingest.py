"""The ingest assets: sources -> documents -> chunks -> vectors, extractions -> graph.

Their metadata and logs carry counts and ids, never what the user wrote (titles, passages,
entity names): Dagster keeps run history after `mnemo forget` (docs/ARCHITECTURE.md)."""

from collections import Counter
from collections.abc import Mapping, Sequence

import dagster as dg

from mnemo.ingest.memory_rows import pending_groups
from mnemo.ingest.pipeline import build_chunks, chunk_groups, entity_rows, scan_documents, update_facts
from mnemo.ingest.progress import every_few_seconds
from mnemo.maintenance.forget import ForgetStores, resume_forget
from mnemo.sleep.merges import canonical_entities, canonical_facts
from mnemo.sources.scan import EMPTY_FILE
from mnemo.sources.walk import Problem
from mnemo.stores.forget_journal import pending_forget
from mnemo_dagster.resources import EmbedderResource, GraphResource, MnemoConfigResource, VectorResource

namespaces = dg.DynamicPartitionsDefinition(name="namespace")
GROUP = "ingest"
GRAPH_POOL = "graph_writer"


def _table(rows: Sequence[Mapping[str, object]], columns: list[str], limit: int = 20, total: int | None = None) -> str:
    """A Markdown table preview of at most `limit` rows (of `total`, when only the first are given)."""
    if not rows:
        return "_none_"
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows[:limit]:
        cells = [str(row.get(c, "")).replace("|", "\\|").replace("\n", " ")[:120] for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    total = len(rows) if total is None else total
    if total > limit:
        lines.append(f"\n… and {total - limit} more")
    return "\n".join(lines)


def finish_cut_off_forget(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource,
                          vectors: VectorResource, embedder: EmbedderResource) -> None:
    """Finish a forget that was cut off before anything is ingested, so nothing it forgets comes back."""
    namespace = context.partition_key
    files = mnemo_config.files(namespace)
    if pending_forget(files.root) is None:
        return
    stores = ForgetStores(mnemo_config.load(), files, vectors.store(namespace), graph.store(namespace),
                          embedder.embedder())
    if resume_forget(stores) is not None:
        context.log.warning("finished a forget that was cut off")


def _log_problems(context: dg.AssetExecutionContext, problems: list[Problem]) -> None:
    """A line per problem file; the empty files (often many, and harmless) in one warning naming them all."""
    empty = [p.path for p in problems if p.reason == EMPTY_FILE]
    if empty:
        context.log.warning(f"{len(empty)} empty files, nothing to ingest: {', '.join(empty)}")
    for problem in problems:
        if problem.reason != EMPTY_FILE:
            log = context.log.error if problem.fatal else context.log.warning
            log(f"{problem.path}: {problem.reason}" + (" (skipped)" if problem.fatal else " (kept)"))


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"python", "parquet"})
def documents(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource,
              vectors: VectorResource, embedder: EmbedderResource) -> dg.MaterializeResult:
    """Notes and conversations scanned incrementally from the namespace's sources."""
    finish_cut_off_forget(context, mnemo_config, graph, vectors, embedder)
    namespace = context.partition_key
    config = mnemo_config.load()
    result = scan_documents(mnemo_config.files(namespace), config.namespace(namespace), config.writeback.key)
    _log_problems(context, result.problems)
    problems = [{"path": p.path, "reason": p.reason, "skipped": p.fatal} for p in result.problems]
    return dg.MaterializeResult(metadata={
        "documents": len(result.documents),
        "new": len(result.new),
        "changed": len(result.changed),
        "renamed": len(result.renamed),
        "deleted": len(result.deleted),
        "unchanged": result.unchanged,
        "ignored": len(result.ignored),
        "by_kind": dg.MetadataValue.json(dict(Counter(d.kind for d in result.documents))),
        "turns": sum(1 for d in result.documents for s in d.segments if s.kind == "turn"),
        "blocks": sum(1 for d in result.documents for s in d.segments if s.kind == "block"),
        "problems": len({p.path for p in result.problems}),  # files with a problem
        "problem_files": dg.MetadataValue.md(_table(problems, ["path", "reason", "skipped"])),
        "preview": dg.MetadataValue.md(_table([d.__dict__ for d in result.documents], ["id", "kind", "source"], 10)),
    })


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"python", "parquet"}, deps=[documents])
def chunks(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource) -> dg.MaterializeResult:
    """Heading-aware passages of each document, with stable content-addressed ids."""
    config = mnemo_config.load()
    found, stats = build_chunks(mnemo_config.files(context.partition_key), config.chunking.max_words)
    return dg.MaterializeResult(
        metadata={
            "chunks": stats.chunks,
            "documents": stats.documents,
            "rechunked_documents": stats.rechunked_documents,
            "reused_documents": stats.reused_documents,
            "preview": dg.MetadataValue.md(
                _table([c.__dict__ for c in found[:10]], ["id", "doc_id", "position"], 10, len(found))
            ),
        }
    )


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"lancedb"}, deps=[chunks])
def chunk_vectors(
    context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, vectors: VectorResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Chunk embeddings and the full-text index in LanceDB; only new or changed chunks are embedded."""
    namespace = context.partition_key
    model = embedder.embedder()
    files = mnemo_config.files(namespace)
    late = pending_groups(files.root, namespace, mnemo_config.load().chunking.max_words)
    stats = vectors.store(namespace).sync_groups("chunks", chunk_groups(files.read_chunks()), model, late=late,
                                                 progress=every_few_seconds(context.log.info))
    context.log.info(f"embedded {stats.embedded} chunks with {model.name}, deleted {stats.deleted}")
    return dg.MaterializeResult(metadata={
        "embedded": stats.embedded, "metadata_updated": stats.updated, "deleted": stats.deleted,
        "rows": stats.total, "embedder": model.name, "dimensions": model.dim, "vector_index": stats.index,
    })


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"python", "parquet"}, deps=[chunks])
def extractions(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource) -> dg.MaterializeResult:
    """Entities, aliases, typed relations and mentions extracted from the namespace's notes."""
    namespace = mnemo_config.load().namespace(context.partition_key)
    summary = update_facts(mnemo_config.files(context.partition_key), mnemo_config.ontology(), namespace)
    counts = summary.counts
    return dg.MaterializeResult(metadata={
        "entities": counts["Entity"],
        "aliases": counts["Alias"],
        "relations": summary.relations,
        "mentions": counts.get("MENTIONS", 0),
        "episodes": counts.get("Episode", 0),
        "days": counts.get("Day", 0),
        "unchanged_inputs": summary.reused,
        "counts": dg.MetadataValue.json(counts),
    })


@dg.asset(
    partitions_def=namespaces, group_name=GROUP, kinds={"kuzu"}, deps=[extractions, dg.AssetKey("llm_extractions")],
    pool=GRAPH_POOL,
)
def entity_graph(
    context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource
) -> dg.MaterializeResult:
    """The Kùzu graph of notes, chunks, entities, aliases and days, reconciled with the extractions."""
    namespace = context.partition_key
    facts = canonical_facts(
        mnemo_config.files(namespace), shared=True
    )  # merges and sleep overlays kept (mnemo/sleep/merges.py)
    stats = graph.store(namespace).apply(facts, run_id=context.run_id)
    changed = {k: v for k, v in stats.inserted.items() if v} | {f"-{k}": v for k, v in stats.deleted.items() if v}
    return dg.MaterializeResult(metadata={
        "writes": stats.writes,
        "inserted": sum(stats.inserted.values()),
        "updated": sum(stats.updated.values()),
        "deleted": sum(stats.deleted.values()),
        "changes": dg.MetadataValue.json(changed),
        "graph": dg.MetadataValue.json(facts.count()),
    })


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"lancedb"}, deps=[extractions])
def entity_vectors(
    context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, vectors: VectorResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Entity embeddings (name, type, aliases, properties) for semantic lookup and grounding."""
    namespace = context.partition_key
    facts = canonical_entities(mnemo_config.files(namespace))
    stats = vectors.store(namespace).sync("entities", entity_rows(facts), embedder.embedder())
    return dg.MaterializeResult(metadata={
        "embedded": stats.embedded, "metadata_updated": stats.updated, "deleted": stats.deleted, "rows": stats.total,
    })


ingest_assets = [documents, chunks, chunk_vectors, extractions, entity_graph, entity_vectors]
