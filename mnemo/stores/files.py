"""A namespace's data directory: Parquet tables between pipeline steps, written atomically."""

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from pathlib import Path
from typing import Any, Generic, TypeVar

import polars as pl

from mnemo.config import validate_namespace
from mnemo.documents import Chunk, Document, ManifestEntry, content_hash
from mnemo.facts import EDGE_COLUMNS, ColumnRows, GraphFacts, row_hash
from mnemo.stores import durable
from mnemo.stores.kept import GRAPH_FILE, VECTORS_FOLDER, file_stamp
from mnemo.stores.kept import read_json_object as read_json_object  # where the stores import it from
from mnemo.stores.session import NamespaceSession

T = TypeVar("T")
DOCUMENT_SCHEMA = {
    "id": pl.String, "namespace": pl.String, "source": pl.String, "path": pl.String, "title": pl.String,
    "kind": pl.String, "body": pl.String, "content_hash": pl.String, "aliases": pl.List(pl.String),
    "tags": pl.List(pl.String), "properties": pl.String, "links": pl.String, "created": pl.String,
    "modified": pl.String, "day": pl.String, "problems": pl.List(pl.String),
    "segments": pl.String, "former_titles": pl.List(pl.String), "date_source": pl.String,
}
MANIFEST_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "source": pl.String, "path": pl.String, "mtime_ns": pl.Int64, "size": pl.Int64,
    "file_hash": pl.String, "doc_ids": pl.List(pl.String),
}
CHUNK_SCHEMA = {
    "id": pl.String, "namespace": pl.String, "doc_id": pl.String, "position": pl.Int64, "heading": pl.String,
    "text": pl.String, "path": pl.String, "title": pl.String, "kind": pl.String, "timestamp": pl.String,
    "prev_id": pl.String, "next_id": pl.String, "metadata": pl.String,
}


# against zstd's default 3: the 10k store's edges file written in 0.10 s, not 0.16, and 6 % smaller
PARQUET_ZSTD_LEVEL = 1


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write via a temp file in the same folder and an atomic rename: never a half file."""
    with durable.replacing(path, f"files:{path.name}") as temp:
        frame.write_parquet(temp, compression="zstd", compression_level=PARQUET_ZSTD_LEVEL)


def write_text_atomic(path: Path, text: str) -> None:
    """`write_parquet`'s guarantee for a text file."""
    durable.write_text(path, text, f"files:{path.name}")


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """`write_parquet`'s guarantee for a file of bytes."""
    durable.write_bytes(path, data, f"files:{path.name}")




EDGE_KEY = ("table", "from_table", "to_table")
EDGE_SCHEMA = {
    **{c: pl.String for c in EDGE_KEY},
    **{c: (pl.Int64 if c.startswith("span_") else pl.String) for c in EDGE_COLUMNS},
}


def _string_lists(name: str, values: list[Sequence[str]]) -> pl.Series:
    """A list-of-strings column, made through Arrow from the flat strings and their offsets
    (polars took 0.09 s to make the manifest's 10,500 lists from Python lists, Arrow 0.006)."""
    import pyarrow as pa  # loaded by the vector store anyway; not by every reader of these files

    offsets = pa.array([0, *accumulate(map(len, values))], pa.int64())
    flat = pa.array([v for strings in values for v in strings], pa.string())
    return pl.Series(name, pa.LargeListArray.from_arrays(offsets, flat)).cast(pl.List(pl.String))


def _node_schema(table: str) -> dict[str, Any]:
    from mnemo.stores.graph_schema import NODE_SCHEMAS, polars_type

    return {c: polars_type(t) for c, t in NODE_SCHEMAS[table].items()}


def _node_frame(table: str, rows: dict[str, dict[str, Any]]) -> pl.DataFrame:
    return _node_rows_frame(_node_schema(table), list(rows.values()))


def _node_rows_frame(schema: dict[str, Any], values: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame({c: [r.get(c) for r in values] for c in schema}, schema=schema)


def _edge_frame(facts: GraphFacts) -> pl.DataFrame:
    return _edge_rows_frame([(key, list(rows.values())) for key, rows in sorted(facts.edges.items())])


def _edge_rows_frame(groups: list[tuple[tuple[str, str, str], list[dict[str, Any]]]]) -> pl.DataFrame:
    """The edges file's frame of these rows, grouped by table key, in order."""
    columns: dict[str, list[Any]] = {
        name: [key[i] for key, rows in groups for _ in rows] for i, name in enumerate(EDGE_KEY)
    }
    values = itemgetter(*EDGE_COLUMNS)
    keys = set(EDGE_COLUMNS)
    rows = [values(r) if r.keys() == keys else tuple(r.get(c) for c in EDGE_COLUMNS)
            for _, group in groups for r in group]
    for c, column in zip(EDGE_COLUMNS, zip(*rows) if rows else [() for _ in EDGE_COLUMNS]):
        columns[c] = list(column)
    return pl.DataFrame(columns, schema=EDGE_SCHEMA)


def _patched(
    old: pl.DataFrame, order: pl.DataFrame, key: list[str], build: Callable[[list[int]], pl.DataFrame]
) -> pl.DataFrame:
    """The frame of the rows `order` lists (their key columns and hashes `h`, in order), taking each
    row whose key and hash `old` holds from `old` and the others from `build(positions)`: equal to
    the frame built from every row, at the cost of converting only the changed ones."""
    joined = order.join(old.with_columns(pl.lit(True).alias("_held")), on=[*key, "h"], how="left", nulls_equal=False,
                        maintain_order="left")
    missing = joined.select(pl.col("_held").is_null().arg_true())["_held"].to_list()
    joined = joined.select(old.columns)
    return _replaced(joined, missing, build(missing)) if missing else joined


def _replaced(frame: pl.DataFrame, at: list[int], rows: pl.DataFrame) -> pl.DataFrame:
    """`frame` with its rows at positions `at` replaced by `rows`, in order."""
    made = rows.with_columns(pl.Series("_at", at, pl.UInt32))
    return frame.with_row_index("_at").update(made, on="_at", include_nulls=True).drop("_at")


def _changed_frame(
    table: str, rows: list[dict[str, Any]], groups: list[tuple[tuple[str, str, str], list[dict[str, Any]]]],
    ids: list[str], hashes: list[str | None], old: pl.DataFrame | None,
) -> pl.DataFrame:
    """The frame of a facts table (`rows` in order; for the edges, `groups` holds the same rows by
    table key), patched from `old` (what the table's file holds, when known and of this version's
    columns): only changed rows are converted from dicts."""
    schema = EDGE_SCHEMA if table == "edges" else _node_schema(table)
    if old is None or old.schema != pl.Schema(schema):
        return _edge_rows_frame(groups) if table == "edges" else _node_rows_frame(schema, rows)
    hashed = [pl.Series("id", ids, pl.String), pl.Series("h", hashes, pl.String)]
    if table == "edges":
        keyed = [key for key, group in groups for _ in group]
        order = pl.DataFrame(
            [*(pl.Series(name, [k[i] for k in keyed], pl.String) for i, name in enumerate(EDGE_KEY)), *hashed]
        )
        return _patched(old, order, [*EDGE_KEY, "id"], lambda at: _edge_rows_frame([(keyed[i], [rows[i]]) for i in at]))
    return _patched(old, pl.DataFrame(hashed), ["id"], lambda at: _node_rows_frame(schema, [rows[i] for i in at]))


@dataclass
class _Parsed(Generic[T]):
    """A table as this process last read or wrote it: the file's version, the objects parsed
    from it and the row each came from. The steps of one run share these objects, which
    nobody changes in place (a change makes a new object)."""

    stat: list[int] | None
    items: list[T]
    rows: dict[int, dict[str, Any]]


def _read_parsed(
    session: NamespaceSession, path: Path, frame: Callable[[], pl.DataFrame], parse: Callable[[dict[str, Any]], T]
) -> list[T]:
    entry = session.entry(path)
    kept: _Parsed[T] | None = entry[1] if entry is not None else None
    if kept is not None and kept.stat is not None and kept.stat == file_stamp(path):
        return list(kept.items)
    rows = frame().to_dicts()
    items = [parse(r) for r in rows]
    session.keep(path, None, _Parsed(file_stamp(path), items, {id(i): r for i, r in zip(items, rows)}))
    return list(items)


def _write_parsed(
    session: NamespaceSession, path: Path, items: list[T], to_row: Callable[[T], dict[str, Any]],
    parse: Callable[[dict[str, Any]], T], schema: dict[str, Any],
) -> None:
    """Write a table; an object read from the file as it is reuses its row, and the very
    objects the file holds, in its order, are not written again."""
    entry = session.entry(path)
    session.drop(path)
    kept: _Parsed[T] | None = entry[1] if entry is not None else None
    if kept is not None and kept.stat is not None and kept.stat == file_stamp(path) and len(items) == len(kept.items) \
            and all(a is b for a, b in zip(items, kept.items)):
        session.keep(path, None, kept)
        return
    read_rows = kept.rows if kept is not None else {}
    rows = [read_rows.get(id(i)) or to_row(i) for i in items]
    if kept is not None and kept.stat is not None and kept.stat == file_stamp(path):  # the file as it was read
        write_parquet(_reused_frame(path, kept.items, items, rows, schema), path)
    else:
        write_parquet(_rows_frame(rows, schema), path)
    parsed = [i if id(i) in read_rows else parse(r) for i, r in zip(items, rows)]
    session.keep(path, None, _Parsed(file_stamp(path), parsed, {id(i): r for i, r in zip(parsed, rows)}))


def _rows_frame(rows: list[dict[str, Any]], schema: dict[str, Any]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=schema)


def _reused_frame(
    path: Path, read: list[Any], items: list[Any], rows: list[dict[str, Any]], schema: dict[str, Any]
) -> pl.DataFrame:
    """The frame of `rows` (one per item, in order), taking the row of each item that is one of the
    objects `read` from the file at `path` (in its order) from the file: only the others are
    converted from dicts. The same frame as one made from every row."""
    at = {id(item): k for k, item in enumerate(read)}
    positions = [at.get(id(item)) for item in items]
    fresh = [k for k, p in enumerate(positions) if p is None]
    old = pl.read_parquet(path) if len(fresh) < len(items) else None
    if old is None or old.schema != pl.Schema(schema):
        return _rows_frame(rows, schema)
    frame = old[[p if p is not None else 0 for p in positions]]
    return _replaced(frame, fresh, _rows_frame([rows[k] for k in fresh], schema)) if fresh else frame


def _chunk_from_row(row: dict[str, Any]) -> Chunk:
    return Chunk(**{**row, "metadata": json.loads(row["metadata"] or "{}")})


class NamespaceFiles:
    """Paths and tables of one namespace under the data directory."""

    def __init__(self, data_dir: Path, namespace: str, session: NamespaceSession | None = None) -> None:
        """`session`: what this process keeps of the namespace, shared by everyone given it (a new one
        when none is given)."""
        self.namespace = validate_namespace(namespace)
        self.root = Path(data_dir) / namespace
        self.session = session or NamespaceSession(self.root)

    @property
    def graph_path(self) -> Path:
        return self.root / GRAPH_FILE

    @property
    def vectors_path(self) -> Path:
        return self.root / VECTORS_FOLDER

    def _table(self, name: str) -> Path:
        return self.root / f"{name}.parquet"

    def _read(self, name: str, schema: dict[str, Any]) -> pl.DataFrame:
        path = self._table(name)
        return pl.read_parquet(path) if path.exists() else pl.DataFrame(schema=schema)

    def read_documents(self) -> list[Document]:
        """The documents table (parsed once per version of the file in a session: see `_Parsed`)."""
        return _read_parsed(
            self.session, self._table("documents"), lambda: self._read("documents", DOCUMENT_SCHEMA), Document.from_row
        )

    def write_documents(self, docs: list[Document]) -> None:
        _write_parsed(self.session, self._table("documents"), docs, Document.to_row, Document.from_row, DOCUMENT_SCHEMA)

    def read_manifest(self) -> list[ManifestEntry]:
        rows = self._read("manifest", MANIFEST_SCHEMA).to_dicts()
        return [ManifestEntry(**{**r, "doc_ids": tuple(r["doc_ids"])}) for r in rows]

    def write_manifest(self, entries: list[ManifestEntry]) -> None:
        columns: dict[str, Any] = {name: [getattr(e, name) for e in entries] for name in MANIFEST_SCHEMA}
        columns["doc_ids"] = _string_lists("doc_ids", columns["doc_ids"])
        write_parquet(pl.DataFrame(columns, schema=MANIFEST_SCHEMA), self._table("manifest"))

    def read_chunks(self) -> list[Chunk]:
        chunks = self._table("chunks")
        return _read_parsed(self.session, chunks, lambda: self._read("chunks", CHUNK_SCHEMA), _chunk_from_row)

    def write_chunks(self, chunks: list[Chunk]) -> None:
        _write_parsed(self.session, self._table("chunks"), chunks, Chunk.to_row, _chunk_from_row, CHUNK_SCHEMA)

    def write_facts(self, facts: GraphFacts, folder: str = "facts") -> None:
        """The extractions: one Parquet file per node table and one for all edges."""
        for table, rows in facts.nodes.items():
            write_parquet(_node_frame(table, rows), self.root / folder / f"{table}.parquet")
        write_parquet(_edge_frame(facts), self.root / folder / "edges.parquet")

    def write_changed_facts(self, facts: GraphFacts, folder: str = "facts") -> list[str]:
        """Like `write_facts`, but a table whose rows (ids and row hashes, in order) are what
        this method last wrote, in a file nobody rewrote since, is left as it is. Returns the
        tables written."""
        base = self.root / folder
        sidecar = base / "written.json"
        try:
            before = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else {}
        except ValueError:
            before = {}  # unreadable: every table is written again
        groups = [(key, list(rows.values())) for key, rows in sorted(facts.edges.items())]
        tables: dict[str, list[dict[str, Any]]] = {t: list(rows.values()) for t, rows in facts.nodes.items()}
        tables["edges"] = [row for _, rows in groups for row in rows]
        after: dict[str, list[Any]] = {}
        written = []
        for table, rows in tables.items():
            path = base / f"{table}.parquet"
            ids, hashes = [r["id"] for r in rows], [r.get("h") for r in rows]
            digest = content_hash(
                table, "\n".join(f"{i}\x1f{h}" if h else f"{i}\x1f-{row_hash(r)}" for i, h, r in zip(ids, hashes, rows))
            )
            held = table in before and file_stamp(path) == before[table][1]  # the file as this method wrote it
            if held and before[table][0] == digest:
                after[table] = before[table]
                continue
            frame = _changed_frame(table, rows, groups, ids, hashes, pl.read_parquet(path) if held else None)
            write_parquet(frame, path)
            after[table] = [digest, file_stamp(path)]
            written.append(table)
        if written or not sidecar.exists():
            write_text_atomic(sidecar, json.dumps(after))
        return written

    def read_facts(
        self, folder: str = "facts", without: frozenset[tuple[str, str, str]] = frozenset(),
        only: frozenset[tuple[str, str, str]] | None = None, edge_columns: tuple[str, ...] | None = None,
        node_columns: dict[str, tuple[str, ...]] | None = None, columnar: frozenset[tuple[str, str, str]] = frozenset(),
    ) -> GraphFacts:
        """The facts written by `write_facts`; edge tables keyed (table, from, to) in `without`, or
        not in `only` when given, are left unread (a reader that never looks at them saves turning
        their rows into dicts). With `edge_columns`, edge rows hold only those columns, and with
        `node_columns` the rows of the node tables it names: such facts are for reading, never for
        writing those tables to a graph. Edge tables in `columnar` are read as `ColumnRows`."""
        from mnemo.stores.graph_schema import NODE_SCHEMAS

        facts = GraphFacts()
        base = self.root / folder
        for table in NODE_SCHEMAS:
            path = base / f"{table}.parquet"
            if path.exists():
                named = (node_columns or {}).get(table)
                columns = None if named is None else list(named)
                facts.nodes[table] = {
                    r["id"]: r for r in pl.read_parquet(path, columns=columns).to_dicts()
                }
        path = base / "edges.parquet"
        if path.exists():
            frame = pl.read_parquet(
                path, columns=None if edge_columns is None else ["table", "from_table", "to_table", *edge_columns]
            )
            for key, rows in frame.partition_by(
                "table", "from_table", "to_table", as_dict=True, maintain_order=True
            ).items():
                if key in without or (only is not None and key not in only):
                    continue
                rows = rows.drop("table", "from_table", "to_table")
                if key in columnar:
                    facts.edges[key] = ColumnRows(rows)
                else:
                    facts.edges.setdefault(key, {}).update(zip(rows["id"].to_list(), rows.to_dicts()))
        return facts

    def file_digest(self, *names: str) -> str:
        """A digest of the bytes of the named files under the namespace (absent ones included)."""
        parts = []
        for name in names:
            path = self.root / name
            parts.append(hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-")
        return content_hash(*names, *parts)

    def folder_stats(self, folder: str) -> list[Any]:
        """Name, size, modification time and inode of each file in a folder: what changes
        when any of them is rewritten."""
        base = self.root / folder
        return sorted([p.name, *(file_stamp(p) or [])] for p in base.iterdir()) if base.is_dir() else []

    def write_problems(self, problems: list[dict[str, Any]]) -> None:
        durable.write_json(self.root / "problems.json", problems, "files:problems.json")

    def read_problems(self) -> list[dict[str, Any]]:
        path = self.root / "problems.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
