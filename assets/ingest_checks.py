"""Asset checks: the graph conforms to the ontology, nothing dangles, vectors fit the embedder."""

import dagster as dg

from mnemo.maintenance.store_integrity import dangling, relation_violations, vector_dimensions
from mnemo_dagster.assets.ingest import chunk_vectors, entity_graph, entity_vectors
from mnemo_dagster.resources import EmbedderResource, GraphResource, VectorResource


@dg.asset_check(asset=entity_graph, description="Every relation's endpoint types are allowed by the ontology.")
def relations_conform_to_ontology(context: dg.AssetCheckExecutionContext, graph: GraphResource) -> dg.AssetCheckResult:
    problems = [line for ns in _namespaces(context) for line in relation_violations(graph.store(ns))]
    return dg.AssetCheckResult(
        passed=not problems, metadata={"violations": len(problems), "examples": "\n".join(problems[:20])}
    )


@dg.asset_check(asset=entity_graph, description="No chunk without its note, no alias without its entity, no orphan.")
def no_dangling_elements(context: dg.AssetCheckExecutionContext, graph: GraphResource) -> dg.AssetCheckResult:
    totals: dict[str, int] = {}
    for ns in _namespaces(context):
        for name, count in dangling(graph.store(ns)).items():
            totals[name] = totals.get(name, 0) + count
    return dg.AssetCheckResult(passed=not any(totals.values()), metadata=totals)


def _vector_check(
    context: dg.AssetCheckExecutionContext, vectors: VectorResource, embedder: EmbedderResource
) -> dg.AssetCheckResult:
    dims = {ns: embedder.embedder(ns).dim for ns in _namespaces(context)}
    wrong = {
        f"{ns}/{table}": d
        for ns, dim in dims.items()
        for table, d in vector_dimensions(vectors.store(ns), dim).items()
    }
    return dg.AssetCheckResult(passed=not wrong, metadata={"expected": dg.MetadataValue.json(dims),
                                                           "mismatched": dg.MetadataValue.json(wrong)})


@dg.asset_check(asset=chunk_vectors, description="Chunk vectors have the embedder's dimension.")
def chunk_vector_dimensions(
    context: dg.AssetCheckExecutionContext, vectors: VectorResource, embedder: EmbedderResource
) -> dg.AssetCheckResult:
    return _vector_check(context, vectors, embedder)


@dg.asset_check(asset=entity_vectors, description="Entity vectors have the embedder's dimension.")
def entity_vector_dimensions(
    context: dg.AssetCheckExecutionContext, vectors: VectorResource, embedder: EmbedderResource
) -> dg.AssetCheckResult:
    return _vector_check(context, vectors, embedder)


def _namespaces(context: dg.AssetCheckExecutionContext | dg.AssetExecutionContext) -> list[str]:
    """The partition(s) the check runs for: the run's partition, else every known namespace."""
    if context.has_partition_key:
        return [context.partition_key]
    return list(context.instance.get_dynamic_partitions("namespace"))


ingest_checks = [relations_conform_to_ontology, no_dangling_elements, chunk_vector_dimensions, entity_vector_dimensions]
