"""What is done with a namespace's vector tables besides syncing: rows by filter, every row's
vector, a hybrid search, a copy of a table and its restoring, compaction. `VectorStore` takes these methods; callers
never see a LanceDB table or write its filter text."""

from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from mnemo.errors import MnemoError
from mnemo.stores.vector_counts import counted_rows
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_index import tune_search
from mnemo.stores.vector_repair import duplicate_ids
from mnemo.stores.vector_rows import TEXT_COLUMN, vectors_by_id
from mnemo.stores.vector_table import VectorTable


def fragment_count(table: Any) -> int:
    """How many fragments a LanceDB table is made of."""
    return int(table.stats()["fragment_stats"]["num_fragments"])


class VectorOps:
    path: Path  # VectorStore's: the folder of its tables

    def table(self, name: str) -> Any | None:  # VectorStore's: the open table, or None
        raise NotImplementedError

    def _db(self) -> Any:  # VectorStore's: its LanceDB connection
        raise NotImplementedError

    def open(self, name: str) -> VectorTable | None:
        """The table's current version, to search and read (None when there is none or it cannot be opened)."""
        table = self.table(name)
        return None if table is None else VectorTable(table)

    def must_open(self, name: str) -> VectorTable:
        """The table's current version; MnemoError naming it when there is none or it cannot be opened."""
        table = self.open(name)
        if table is None:
            raise MnemoError(f"vector table {name!r} is missing or unreadable (run the ingest job first)")
        return table

    def duplicate_ids(self, name: str) -> list[str]:
        """The ids held by more than one row of the table (none when it cannot be opened)."""
        table = self.table(name)
        return duplicate_ids(table) if table is not None else []

    def count(self, name: str, where: Filter | None = None) -> int:
        """Rows of the table (those `where` selects, when given); 0 without the table. A whole
        table's count is kept by its version, so LanceDB is not loaded to count an unchanged table
        (`vector_counts`)."""
        def rows() -> int | None:
            table = self.table(name)
            return None if table is None else int(table.count_rows(where.sql if where is not None else None))

        return (rows() or 0) if where is not None else counted_rows(self.path, name, rows)

    def rows(self, name: str, columns: list[str], where: Filter | None = None) -> list[dict[str, Any]]:
        """The columns of the rows `where` selects (every row without it); none without the table."""
        table = self.table(name)
        return [] if table is None else VectorTable(table).select(columns, where).to_pylist()

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

    def fragments(self, name: str) -> int | None:
        """How many fragments the table is made of (None when there is none or it cannot be opened)."""
        table = self.table(name)
        return None if table is None else fragment_count(table)

    def compact(self, name: str, keep_versions_for: timedelta) -> tuple[int, int] | None:
        """Rewrite the table's fragments into few and drop versions older than `keep_versions_for`;
        the fragments before and after (None when there is no table or it cannot be opened)."""
        table = self.table(name)
        if table is None:
            return None
        before = fragment_count(table)
        table.optimize(cleanup_older_than=keep_versions_for)
        return before, fragment_count(table)

    def restore(self, parquet: Path, language: str = "English") -> None:
        """Make the table named after the Parquet file hold exactly its rows, with a full-text index
        (stemmed in `language`, LanceDB's name) when it has text."""
        import pyarrow.parquet as pq

        table = self._db().create_table(parquet.stem, data=pq.read_table(parquet), mode="overwrite")
        if TEXT_COLUMN in table.schema.names:
            table.create_fts_index(TEXT_COLUMN, replace=True, language=language)
