"""The retrieval primitives recall fuses: full-text and vector search over a namespace's
LanceDB tables, row lookups by id, and query text handling."""

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from mnemo.documents import normalize_name
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_rows import vector_matrix
from mnemo.stores.vector_table import VectorTable

ROW_COLUMNS = [
    "vector",
    "id",
    "doc_id",
    "position",
    "path",
    "title",
    "heading",
    "kind",
    "text",
    "timestamp",
    "prev_id",
    "next_id",
    "metadata",
]
_WORD = re.compile(r"[\w']+", re.UNICODE)


def fts_query(text: str) -> str:
    """A full-text query made only of the words of `text` (no query syntax gets through)."""
    words = [w.strip("'") for w in _WORD.findall(text)]
    return " ".join(w for w in words if w)


@dataclass(frozen=True)
class TimeWindow:
    """Filters on when a chunk was said or written (ISO strings compare in time order). They apply
    to dated chunks: an undated passage (a note with no date of its own) passes, unless `dated_only`."""

    since: str | None = None
    until: str | None = None
    dated_only: bool = False

    def where(self) -> Filter | None:
        return Filter.time(self.since, self.until, self.dated_only)


def lexical(
    table: VectorTable, query: str, limit: int, window: TimeWindow, held: "HeldChunks | None" = None
) -> list[dict[str, Any]]:
    """BM25 hits on the chunk text, best first. With `held` (the rows of this version of the
    table), the search returns ids and scores and the rows come from memory: on a 10k-note store
    the search with its rows took 25-30 ms p50, with ids alone 9-12."""
    text = fts_query(query)
    if not text:
        return []
    columns = ["id", "_score"] if held is not None else [*ROW_COLUMNS, "_score"]
    found = table.words(text, columns, limit, window.where(), row_ids=held is None)
    if held is None:
        return vector_rows(found)
    scores = dict(zip(found["id"].to_pylist(), found["_score"].to_pylist()))
    return [{**row, "_score": scores[row["id"]]} for row in held.full_rows(list(scores))]


def vector_rows(data: Any) -> list[dict[str, Any]]:
    """The rows of an Arrow table as dicts, with `vector` (a fixed-size list column) as a NumPy row
    instead of a list of Python floats: scoring needs arrays, and making 384 floats a row only to
    turn them back cost eager recall ~10 ms at p95 on a 10k store."""
    if "vector" not in data.column_names or data.num_rows == 0 or data["vector"].null_count \
            or not pa.types.is_fixed_size_list(data["vector"].type):
        return data.to_pylist()
    first = data.column_names[0] == "vector"
    rows = data.drop_columns(["vector"]).to_pylist()
    return [{"vector": v, **r} if first else {**r, "vector": v} for r, v in zip(rows, vector_matrix(data["vector"]))]


class HeldChunks:
    """The rows (ROW_COLUMNS, as Arrow) of one version of a small chunks table, held in memory so
    that exact vector search and the turns around the hits need no query. Recall holds them only
    for tables of at most `RecallSettings.hold_rows` rows (about 2 KB a row with 384-dimensional
    vectors); larger tables are searched through their ANN index."""

    def __init__(self, table: VectorTable, data: Any | None = None) -> None:
        """The rows of the table's version, or `data` (rows of it with their `_rowid`)."""
        if data is None:
            data = table.select(ROW_COLUMNS, row_ids=True)
        self.version = table.version
        self.rowids = data["_rowid"].to_numpy()  # where each row is in this version (`recall.held`)
        self.data = data.drop_columns(["_rowid"]).combine_chunks()
        self.ids = data["id"].to_pylist()
        self.offset = {row_id: n for n, row_id in enumerate(self.ids)}
        self.vectors = vector_matrix(self.data["vector"])
        norms = np.linalg.norm(self.vectors, axis=1)
        self.norms = np.where(norms > 0, norms, 1.0)
        self.prev = data["prev_id"].to_pylist()
        self.next = data["next_id"].to_pylist()
        self.doc_ids = data["doc_id"].to_pylist()
        self.metadata = data["metadata"].to_pylist()
        self._by_doc: dict[str, np.ndarray] | None = None
        self.timestamps = np.asarray([t or "" for t in data["timestamp"].to_pylist()], dtype=str)

    @property
    def nbytes(self) -> int:
        """Roughly what the held rows cost in memory."""
        return int(self.data.nbytes + self.norms.nbytes + self.timestamps.nbytes) + 200 * len(self.ids)

    def rows(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """id, vector, prev/next ids, document and metadata of the given rows, in table order
        (missing ids are absent)."""
        found = sorted(self.offset[i] for i in set(ids) if i in self.offset)
        return {
            self.ids[n]: {
                "id": self.ids[n],
                "vector": self.vectors[n],
                "prev_id": self.prev[n],
                "next_id": self.next[n],
                "doc_id": self.doc_ids[n],
                "metadata": self.metadata[n],
            }
            for n in found
        }

    def of_documents(self, docs: list[str]) -> dict[str, np.ndarray]:
        """Document id -> the offsets of its rows, for the given documents that are held."""
        if self._by_doc is None:
            order = np.argsort(np.asarray(self.doc_ids, dtype=object), kind="stable")
            keys = [self.doc_ids[n] for n in order]
            bounds = [0, *(n for n in range(1, len(keys)) if keys[n] != keys[n - 1]), len(keys)]
            self._by_doc = {keys[a]: order[a:b] for a, b in zip(bounds, bounds[1:])}
        return {d: self._by_doc[d] for d in docs if d in self._by_doc}

    def full_rows(self, ids: list[str]) -> list[dict[str, Any]]:
        """The whole rows (ROW_COLUMNS) of the given ids, in the order given (missing ids are absent)."""
        found = [self.offset[i] for i in ids if i in self.offset]
        return vector_rows(self.data.take(found)) if found else []

    def column(self, ids: list[str], name: str) -> dict[str, Any]:
        """id -> the value of one column, for the given ids that are held."""
        found = [self.offset[i] for i in ids if i in self.offset]
        return dict(zip((self.ids[n] for n in found), self.data[name].take(found).to_pylist())) if found else {}

    def nearest(self, vector: np.ndarray, limit: int, window: TimeWindow) -> list[str]:
        """Ids of the `limit` rows nearest the vector by cosine, inside the window (exact search)."""
        query = np.asarray(vector, dtype=np.float32)
        scores = (self.vectors @ query) / (self.norms * (np.linalg.norm(query) or 1.0))
        inside = np.ones(len(self.ids), dtype=bool)
        if window.since:
            inside &= self.timestamps >= window.since
        if window.until:
            inside &= self.timestamps <= window.until
        if window.since or window.until:
            undated = self.timestamps == ""
            inside = (inside & ~undated) if window.dated_only else (inside | undated)
        candidates = np.flatnonzero(inside)
        if len(candidates) > limit:
            candidates = candidates[np.argpartition(-scores[candidates], limit - 1)[:limit]]
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        return [self.ids[n] for n in order[:limit]]


def semantic(
    table: VectorTable, vector: np.ndarray, limit: int, window: TimeWindow, held: HeldChunks | None = None
) -> list[dict[str, Any]]:
    """Nearest chunks by cosine distance, best first (exactly, from `held` when given); each row
    from the index keeps its address (`_rowid`) for `rows_near`."""
    if held is not None:
        return held.full_rows(held.nearest(vector, limit, window))
    return vector_rows(table.nearest(vector, [*ROW_COLUMNS, "_distance"], limit, window.where()))


def rows_near(
    table: VectorTable, hits: list[dict[str, Any]], reach: int, columns: list[str]
) -> dict[str, dict[str, Any]]:
    """Id -> row of the rows up to `reach` addresses (`_rowid`, as searches return it) before and
    after each hit that has one, in this version of the table. A sync writes a document's chunks
    next to each other (`embedding_windows`), so these are mostly the hits' neighbouring chunks:
    one read by address instead of a lookup by id per hop (at 1M chunks, 200 rows in 9.5 ms against
    32 for 187 ids). Addresses that hold no row (deleted, or past a fragment's end) are skipped, and
    callers look rows up by id, so a row another writer has since moved is never taken for another."""
    hits_at = {h["_rowid"] for h in hits if h.get("_rowid") is not None}
    near = {a + step for a in hits_at for step in range(-reach, reach + 1) if a + step >= 0} - hits_at
    if not near:
        return {}
    return {r["id"]: r for r in vector_rows(table.at(sorted(near), columns))}


def rows_by_id(table: VectorTable, ids: list[str], columns: list[str] = ROW_COLUMNS) -> dict[str, dict[str, Any]]:
    """Chunk rows for the given ids (missing ids are simply absent)."""
    found: dict[str, dict[str, Any]] = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        rows = vector_rows(table.select(columns, Filter.ids(part)))
        found.update({r["id"]: r for r in rows})
    return found


def entity_names(table: VectorTable | None) -> list[tuple[str, str, str]]:
    """(entity id, kind, normalized name) for every name and alias in the entities table."""
    if table is None:
        return []
    import json

    names = []
    for row in table.select(["id", "kind", "name", "aliases"]).to_pylist():
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


class NameIndex:
    """`names_in` for one list of names, answered by looking up the query's word sequences."""

    def __init__(self, names: list[tuple[str, str, str]]) -> None:
        self.kinds = {eid: kind for eid, kind, _ in names}
        self.positions: dict[str, list[tuple[int, str]]] = {}
        for position, (eid, _, norm) in enumerate(sorted(names, key=lambda n: -len(n[2]))):
            self.positions.setdefault(norm, []).append((position, eid))
        self.longest = max((norm.count(" ") + 1 for norm in self.positions), default=0)

    def coverage(self, query: str) -> dict[str, float]:
        """Per entity named in the query, the share of the query's words its longest matched
        name covers: "Why do I never finish anything?" is mostly the link text "I never finish
        anything", while "Obsidian" is one word of a longer question about something else."""
        words = normalize_name(query).split()
        shares: dict[str, float] = {}
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + self.longest) + 1):
                for _, eid in self.positions.get(" ".join(words[start:end]), ()):
                    shares[eid] = max(shares.get(eid, 0.0), (end - start) / len(words))
        return shares

    def find(self, query: str) -> list[str]:
        """The same ids in the same order as `names_in(query, names)`."""
        words = normalize_name(query).split()
        hits: list[tuple[int, str]] = []
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + self.longest) + 1):
                hits.extend(self.positions.get(" ".join(words[start:end]), ()))
        return list(dict.fromkeys(eid for _, eid in sorted(hits)))


def reference(entity: str, kind: str) -> str:
    """`person_alice_chen` of kind person -> the inline reference `person_id:alice_chen`."""
    slug = entity[len(kind) + 1:] if entity.startswith(kind + "_") else entity
    return f"{kind}_id:{slug}"
