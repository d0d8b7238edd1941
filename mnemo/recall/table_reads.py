"""What recall reads from a namespace's LanceDB tables, and keeps between calls: the chunks
table's rows while the table is small (`recall.held`), the index of entity names, and the worker
thread the full-text search runs on while the query is embedded."""

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from mnemo.recall.dates import DaySpan
from mnemo.recall.fusion import Hits
from mnemo.recall.held import refreshed
from mnemo.recall.search import HeldChunks, NameIndex, TimeWindow, entity_names, lexical, rows_by_id, semantic
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import Embedder
from mnemo.stores.vector_table import VectorTable
from mnemo.stores.vectors import VectorStore


class TableReads:
    """The searches and lookups of one namespace's tables, with what they keep per table version."""

    def __init__(self, vectors: VectorStore, embedder: Embedder, settings: RecallSettings) -> None:
        self.vectors = vectors
        self.embedder = embedder
        self.settings = settings  # hold_rows and exact_vectors (the engine keeps it current)
        self.held_rows: tuple[int, HeldChunks | None] | None = None  # (table version, its rows if held)
        self._names: tuple[int | None, list[tuple[str, str, str]], NameIndex] | None = None
        self._worker: ThreadPoolExecutor | None = None

    def names(self) -> tuple[list[tuple[str, str, str]], NameIndex]:
        """Entity names and aliases with their index, cached until the entities table changes."""
        table = self.vectors.open("entities")
        version = None if table is None else table.version
        if self._names is None or self._names[0] != version:
            names = entity_names(table)
            self._names = (version, names, NameIndex(names))
        return self._names[1], self._names[2]

    def held(self, table: VectorTable) -> HeldChunks | None:
        """The chunks table's vectors and links, held per table version while the table is small."""
        version = table.version
        if self.held_rows is None or self.held_rows[0] != version:
            small = self.settings.hold_rows and table.count() <= self.settings.hold_rows
            before = self.held_rows[1] if self.held_rows else None
            self.held_rows = (version, refreshed(before, table) if small else None)
        return self.held_rows[1]

    def _background(self) -> ThreadPoolExecutor:
        """Worker threads: the full-text search runs there while the query is embedded and
        searched by vector here (LanceDB and torch release the GIL)."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=4, thread_name_prefix="mnemo-recall")
        return self._worker

    def close(self) -> None:
        """End the worker threads (a later search starts them again)."""
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.shutdown(wait=True)

    def hits(self, table: VectorTable, query: str, size: int, window: TimeWindow) -> Hits:
        """The query's vector, then its full-text and vector hits, best first: the full-text search
        runs on a worker thread while the query is embedded and searched by vector here."""
        held = self.held(table)  # the rows of a small table, for both searches' hits
        lexical_rows = self._background().submit(lexical, table, query, size, window, held)
        vector = self.embedder.encode_query([query])[0]
        semantic_rows = semantic(table, vector, size, window, held if self.settings.exact_vectors else None)
        return Hits(query, vector, lexical_rows.result(), semantic_rows, table, held)

    def dated(self, table: VectorTable, vector: np.ndarray, size: int, span: DaySpan) -> list[dict[str, Any]]:
        """The passages of the days a question names nearest its vector (`dates.add_dated`)."""
        held = self.held(table) if self.settings.exact_vectors else None
        return semantic(table, vector, size, TimeWindow(span.since, span.until, dated_only=True), held)

    def paths(self, table: VectorTable, ids: list[str]) -> dict[str, str]:
        """Chunk id -> its note's path: from the held rows of a small table, else one lookup."""
        held = self.held(table)
        if held is not None:
            return held.column(ids, "path")
        return {i: r["path"] for i, r in rows_by_id(table, ids, ["id", "path"]).items()}
