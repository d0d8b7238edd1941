"""LanceDB's indexes of a table: the vector index (built once a table is large enough, refreshed as
it grows, and how searches use it), the full-text index (its stemmer language, rows folded in) and
the id index."""

import warnings
from typing import Any

from mnemo.config import VectorIndexConfig
from mnemo.stores.vector_rows import TEXT_COLUMN

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


# -- the full-text and id indexes ---------------------------------------------------------

def has_id_index(table: Any) -> bool:
    return any(list(getattr(index, "columns", [])) == ["id"] for index in table.list_indices())


def index_ids(table: Any) -> None:
    """A BTree index on `id`: lookups by id (a hit's neighbouring turns, rows for hydration)
    stay fast as the table grows instead of scanning it."""
    with warnings.catch_warnings():  # the replacement API takes no scalar column in 0.40
        warnings.simplefilter("ignore")
        table.create_scalar_index("id", replace=True)


def fold_new_rows(table: Any) -> bool:
    """Fold rows written since the full-text index was built into it (and into the id and
    vector indexes) once they pass 5 % of the table. Until then LanceDB searches them without
    the index, and deleted rows are masked, so results stay complete; rebuilding the FTS index
    on every change had cost 0.3 s at 22k rows and 8-36 s at 1M."""
    for index in table.list_indices():
        if index.index_type == "FTS" and table.index_stats(index.name).num_unindexed_rows > table.count_rows() // 20:
            table.optimize()
            return True
    return False


def fts_language(table: Any) -> str | None:
    """The stemmer language of the table's full-text index; None when it has none."""
    for index in table.list_indices():
        if TEXT_COLUMN in getattr(index, "columns", []):
            return str((getattr(index, "index_details", None) or {}).get("language", "English"))
    return None
