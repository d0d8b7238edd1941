"""One version of a vector table, opened for reading: the searches and lookups recall and
grounding make, by name. Every answer is Arrow (`pa.Table`), so callers choose how to turn rows
into Python; the LanceDB table and its query builder stay inside."""

from typing import Any

import numpy as np
import pyarrow as pa

from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_index import tune_search
from mnemo.stores.vector_rows import TEXT_COLUMN


class VectorTable:
    def __init__(self, table: Any) -> None:
        self._table = table

    @property
    def version(self) -> int:
        return int(self._table.version)

    def count(self, where: Filter | None = None) -> int:
        return int(self._table.count_rows(where.sql if where is not None else None))

    def select(self, columns: list[str], where: Filter | None = None, row_ids: bool = False) -> pa.Table:
        """The columns of every row `where` selects (all without it), with each row's address
        (`_rowid`) when `row_ids`."""
        search = self._table.search().select(columns)
        search = search.where(where.sql) if where is not None else search
        return (search.with_row_id(True) if row_ids else search).limit(None).to_arrow()

    def at(self, row_ids: list[int], columns: list[str], with_row_ids: bool = False) -> pa.Table:
        """The rows at these addresses (`_rowid`) of this version; addresses holding no row are skipped."""
        taken = self._table.take_row_ids(row_ids).select(columns)
        return (taken.with_row_id() if with_row_ids else taken).to_arrow()

    def words(self, text: str, columns: list[str], limit: int, where: Filter | None, row_ids: bool) -> pa.Table:
        """BM25 hits of a full-text query on the passages' text (`_score`), best first."""
        search = self._table.search(text, query_type="fts", fts_columns=TEXT_COLUMN).select(columns)
        search = search.with_row_id(row_ids).limit(limit)
        return (search.where(where.sql, prefilter=True) if where is not None else search).to_arrow()

    def nearest(self, vector: np.ndarray, columns: list[str], limit: int, where: Filter | None = None) -> pa.Table:
        """The rows nearest the vector by cosine (`_distance`), best first, with their address (`_rowid`)."""
        search = tune_search(
            self._table.search(vector.tolist(), query_type="vector").metric("cosine").select(columns)
            .with_row_id(True).limit(limit))
        return (search.where(where.sql, prefilter=True) if where is not None else search).to_arrow()

    def neighbours(self, vector: Any, limit: int) -> list[dict[str, Any]]:
        """(id, _distance) of the rows nearest the vector by cosine, best first."""
        search = self._table.search(vector).distance_type("cosine").select(["id", "_distance"]).limit(limit)
        return list(tune_search(search).to_list())
