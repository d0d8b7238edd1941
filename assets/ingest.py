"""The ingest assets: sources -> documents -> chunks -> vectors, extractions -> graph.

Their metadata and logs carry counts and ids, never what the user wrote (titles, passages,
entity names): Dagster keeps run history after `mnemo forget` (docs/ARCHITECTURE.md)."""

from collections import Counter
from collections.abc import Mapping, Sequence

import dagster as dg

from mnemo.extract.llm import LLMExtractor
from mnemo.ingest.progress import every_few_seconds
from mnemo.pipelines.ingest import IngestPipeline
from mnemo.sources.scan import EMPTY_FILE
from mnemo.sources.walk import Problem
from mnemo.stores.vectors import SyncStats
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


def ingest_pipeline(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource,
                    vectors: VectorResource, embedder: EmbedderResource,
                    extractor: LLMExtractor | None = None) -> IngestPipeline:
    """The partition's ingest pipeline on the run's resources; each asset runs one of its steps."""
    namespace = context.partition_key
    return IngestPipeline(mnemo_config.load(), mnemo_config.files(namespace), mnemo_config.ontology(),
                          vectors.store(namespace), graph.store(namespace), embedder.embedder(namespace), extractor,
                          context.run_id)


def _synced(stats: SyncStats) -> dict[str, int]:
    """What a vector table's sync did, as an asset's metadata."""
    return {"embedded": stats.embedded, "metadata_updated": stats.updated, "deleted": stats.deleted,
            "rows": stats.total}


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
    pipeline = ingest_pipeline(context, mnemo_config, graph, vectors, embedder)
    if pipeline.forget():
        context.log.warning("finished a forget that was cut off")
    result = pipeline.documents()
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
def chunks(context: dg.AssetExecutionContext, mnemo_config: MnemoConfigResource, graph: GraphResource,
           vectors: VectorResource, embedder: EmbedderResource) -> dg.MaterializeResult:
    """Heading-aware passages of each document, with stable content-addressed ids."""
    found, stats = ingest_pipeline(context, mnemo_config, graph, vectors, embedder).chunks()
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
    context: dg.AssetExecutionContext,
    mnemo_config: MnemoConfigResource,
    graph: GraphResource,
    vectors: VectorResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Chunk embeddings and the full-text index in LanceDB; only new or changed chunks are embedded."""
    embedder.choose(context.partition_key)  # from its documents' languages, recorded: a change re-embeds every row
    pipeline = ingest_pipeline(context, mnemo_config, graph, vectors, embedder)
    model = pipeline.embedder
    stats = pipeline.chunk_vectors(progress=every_few_seconds(context.log.info))
    context.log.info(f"embedded {stats.embedded} chunks with {model.name}, deleted {stats.deleted}")
    return dg.MaterializeResult(
        metadata={**_synced(stats), "embedder": model.name, "dimensions": model.dim, "vector_index": stats.index}
    )


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"python", "parquet"}, deps=[chunks])
def extractions(
    context: dg.AssetExecutionContext,
    mnemo_config: MnemoConfigResource,
    graph: GraphResource,
    vectors: VectorResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Entities, aliases, typed relations and mentions extracted from the namespace's notes."""
    summary = ingest_pipeline(context, mnemo_config, graph, vectors, embedder).extractions()
    counts = summary.counts
    return dg.MaterializeResult(
        metadata={
            "entities": counts["Entity"],
            "aliases": counts["Alias"],
            "relations": summary.relations,
            "mentions": counts.get("MENTIONS", 0),
            "episodes": counts.get("Episode", 0),
            "days": counts.get("Day", 0),
            "unchanged_inputs": summary.reused,
            "counts": dg.MetadataValue.json(counts),
        }
    )


@dg.asset(
    partitions_def=namespaces,
    group_name=GROUP,
    kinds={"kuzu"},
    deps=[extractions, dg.AssetKey("llm_extractions")],
    pool=GRAPH_POOL,
)
def entity_graph(
    context: dg.AssetExecutionContext,
    mnemo_config: MnemoConfigResource,
    graph: GraphResource,
    vectors: VectorResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """The Kùzu graph of notes, chunks, entities, aliases and days, reconciled with the extractions."""
    written = ingest_pipeline(context, mnemo_config, graph, vectors, embedder).entity_graph()  # canonical: merges kept
    stats = written.stats
    changed = {k: v for k, v in stats.inserted.items() if v} | {f"-{k}": v for k, v in stats.deleted.items() if v}
    return dg.MaterializeResult(
        metadata={
            "writes": stats.writes,
            "inserted": sum(stats.inserted.values()),
            "updated": sum(stats.updated.values()),
            "deleted": sum(stats.deleted.values()),
            "changes": dg.MetadataValue.json(changed),
            "graph": dg.MetadataValue.json(written.counts),
        }
    )


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"lancedb"}, deps=[extractions])
def entity_vectors(
    context: dg.AssetExecutionContext,
    mnemo_config: MnemoConfigResource,
    graph: GraphResource,
    vectors: VectorResource,
    embedder: EmbedderResource,
) -> dg.MaterializeResult:
    """Entity embeddings (name, type, aliases, properties) for semantic lookup and grounding."""
    stats = ingest_pipeline(context, mnemo_config, graph, vectors, embedder).entity_vectors()
    return dg.MaterializeResult(metadata=_synced(stats))


ingest_assets = [documents, chunks, chunk_vectors, extractions, entity_graph, entity_vectors]
