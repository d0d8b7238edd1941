"""LanceDB's vector index: built once a table is large enough, refreshed as it grows, and how searches use it."""

from typing import Any

from mnemo.config import VectorIndexConfig

VECTOR_COLUMN = "vector"



NPROBES = 20


REFINE_FACTOR = 10


def build_vector_index(table: Any, kind: str) -> None:
    """(Re)build the table's ANN index for unit vectors searched by cosine distance: IVF_HNSW_SQ
    with one partition (an HNSW graph) per 100k rows, or IVF_PQ with sqrt(rows) partitions."""
    from lancedb.index import HnswSq, IvfPq


    rows = table.count_rows()
    if kind == "IVF_PQ":
        config: Any = IvfPq(distance_type="cosine", num_partitions=max(1, round(rows ** 0.5)))
    else:
        config = HnswSq(distance_type="cosine", num_partitions=max(1, rows // 100_000))
    table.create_index(VECTOR_COLUMN, config=config, replace=True)


def tune_search(search: Any, nprobes: int = NPROBES, refine_factor: int = REFINE_FACTOR) -> Any:
    """A vector (or hybrid) query with the ANN settings; LanceDB ignores them on a table without an index."""
    return search.nprobes(nprobes).refine_factor(refine_factor)


def vector_index_state(table: Any) -> tuple[int, int] | None:
    """(indexed rows, unindexed rows) of the table's vector index, or None without one."""
    for index in table.list_indices():
        if VECTOR_COLUMN in index.columns and index.index_type != "FTS":
            stats = table.index_stats(index.name)
            return stats.num_indexed_rows, stats.num_unindexed_rows
    return None


def refresh_vector_index(table: Any, settings: VectorIndexConfig) -> str:
    """Build the ANN index once the table has `min_rows` rows; afterwards fold new rows into it
    (they are searched exactly until then) and retrain it when the table has doubled."""
    rows = table.count_rows()
    state = vector_index_state(table)
    if state is None and rows < settings.min_rows:
        return "exact"
    if state is None or state[0] < rows // 2:
        build_vector_index(table, settings.kind)
        return "built"
    if state[1] > rows // 20:
        table.optimize()
        return "updated"
    return "current"
