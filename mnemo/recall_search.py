"""The retrieval primitives recall fuses: full-text and vector search over a namespace's
LanceDB tables, row lookups by id, and query text handling."""

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from mnemo.documents import normalize_name
from mnemo.stores.vectors import TEXT_COLUMN, id_filter, sql_quote, tune_search

ROW_COLUMNS = ["vector", "id", "doc_id", "position", "path", "title", "heading", "kind", "text", "timestamp", "prev_id", "next_id", "metadata"]
_WORD = re.compile(r"[\w']+", re.UNICODE)


def fts_query(text: str) -> str:
    """A full-text query made only of the words of `text` (no query syntax gets through)."""
    words = [w.strip("'") for w in _WORD.findall(text)]
    return " ".join(w for w in words if w)


@dataclass(frozen=True)
class TimeWindow:
    """Filters on when a chunk was said or written (ISO strings compare in time order)."""

    since: str | None = None
    until: str | None = None

    def where(self) -> str | None:
        parts = []
        if self.since:
            parts.append(f"timestamp >= {sql_quote(self.since)}")
        if self.until:
            parts.append(f"timestamp <> '' AND timestamp <= {sql_quote(self.until)}")
        return " AND ".join(parts) or None


def lexical(table: Any, query: str, limit: int, window: TimeWindow) -> list[dict[str, Any]]:
    """BM25 hits on the chunk text, best first."""
    text = fts_query(query)
    if not text:
        return []
    search = table.search(text, query_type="fts", fts_columns=TEXT_COLUMN).select([*ROW_COLUMNS, "_score"]).limit(limit)
    where = window.where()
    if where:
        search = search.where(where, prefilter=True)
    return search.to_list()


def semantic(table: Any, vector: np.ndarray, limit: int, window: TimeWindow) -> list[dict[str, Any]]:
    """Nearest chunks by cosine distance, best first."""
    search = tune_search(table.search(vector.tolist(), query_type="vector").metric("cosine").select([*ROW_COLUMNS, "_distance"]).limit(limit))
    where = window.where()
    if where:
        search = search.where(where, prefilter=True)
    return search.to_list()


def rows_by_id(table: Any, ids: list[str], columns: list[str] = ROW_COLUMNS) -> dict[str, dict[str, Any]]:
    """Chunk rows for the given ids (missing ids are simply absent)."""
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        rows = table.search().where(id_filter(part)).select(columns).limit(None).to_list()
        found.update({r["id"]: r for r in rows})
    return found


def entity_names(table: Any | None) -> list[tuple[str, str, str]]:
    """(entity id, kind, normalized name) for every name and alias in the entities table."""
    if table is None:
        return []
    import json

    names = []
    for row in table.search().select(["id", "kind", "name", "aliases"]).limit(None).to_list():
        for name in [row["name"], *json.loads(row["aliases"] or "[]")]:
            norm = normalize_name(name)
            if len(norm) >= 3:
                names.append((row["id"], row["kind"], norm))
    return names


def names_in(query: str, names: list[tuple[str, str, str]]) -> list[str]:
    """Entity ids whose name or alias appears, as whole words, in the query."""
    padded = f" {normalize_name(query)} "
    found = []
    for eid, _, norm in sorted(names, key=lambda n: -len(n[2])):
        if f" {norm} " in padded and eid not in found:
            found.append(eid)
    return found


def reference(entity: str, kind: str) -> str:
    """`person_alice_chen` of kind person -> the inline reference `person_id:alice_chen`."""
    slug = entity[len(kind) + 1:] if entity.startswith(kind + "_") else entity
    return f"{kind}_id:{slug}"
