"""What a namespace's vector tables answer besides syncing: rows by filter, every row's vector,
a hybrid search, a copy of a table and its restoring. `VectorStore` takes these methods; callers
never see a LanceDB table or write its filter text."""

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_index import tune_search
from mnemo.stores.vector_rows import TEXT_COLUMN, vectors_by_id


def select_rows(table: Any, columns: list[str], where: Filter | None = None) -> list[dict[str, Any]]:
    """The columns of every row of an open table that `where` selects (all rows without it)."""
    search = table.search().select(columns)
    return (search.where(where.sql) if where is not None else search).limit(None).to_list()


class VectorReads:
    def table(self, name: str) -> Any | None:  # VectorStore's: the open table, or None
        raise NotImplementedError

    def _db(self) -> Any:  # VectorStore's: its LanceDB connection
        raise NotImplementedError

    def count(self, name: str, where: Filter | None = None) -> int:
        """Rows of the table (those `where` selects, when given); 0 without the table."""
        table = self.table(name)
        return 0 if table is None else table.count_rows(where.sql if where is not None else None)

    def rows(self, name: str, columns: list[str], where: Filter | None = None) -> list[dict[str, Any]]:
        """The columns of the rows `where` selects (every row without it); none without the table."""
        table = self.table(name)
        return [] if table is None else select_rows(table, columns, where)

    def vectors_of(self, name: str) -> dict[str, np.ndarray]:
        """Id -> vector of every row of the table ({} without it)."""
        table = self.table(name)
        if table is None:
            return {}
        return vectors_by_id(table.search().select(["id", "vector"]).limit(None).to_arrow())

    def hybrid(self, name: str, vector: np.ndarray, text: str, k: int) -> list[dict[str, Any]]:
        """The k rows that best match by meaning (`vector`) and by words (`text`) together, fused by
        reciprocal rank (its `_relevance_score`); none without the table."""
        table = self.table(name)
        if table is None:
            return []
        from lancedb.rerankers import RRFReranker

        search = tune_search(table.search(query_type="hybrid", fts_columns=TEXT_COLUMN).vector(vector))
        return list(search.text(text).rerank(RRFReranker()).limit(k).to_list())

    def snapshot(self, name: str) -> pa.Table | None:
        """Every row of the table, as Arrow (None when there is no table or it cannot be opened)."""
        table = self.table(name)
        return None if table is None else table.to_arrow()

    def restore(self, parquet: Path) -> None:
        """Make the table named after the Parquet file hold exactly its rows, with a full-text index
        when it has text."""
        import pyarrow.parquet as pq

        table = self._db().create_table(parquet.stem, data=pq.read_table(parquet), mode="overwrite")
        if TEXT_COLUMN in table.schema.names:
            table.create_fts_index(TEXT_COLUMN, replace=True)
