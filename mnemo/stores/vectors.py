"""The vector store: a namespace's LanceDB tables (`chunks`, `entities`) with a native FTS index.

`sync` reconciles a table with the desired rows: only rows whose embedded text changed are
embedded again, rows whose other fields changed keep their vector, and rows that are no
longer wanted are deleted. A second sync with the same rows embeds and writes nothing.
`sync_groups` does the same for rows in groups (a document's chunks) and, while the table is as
its last run left it, makes and compares only the rows of groups that changed.
"""

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from mnemo.config import VectorIndexConfig
from mnemo.documents import content_hash
from mnemo.runtime import keep_out_of_collections
from mnemo.runtime_imports import defer_package_init
from mnemo.stores import faults
from mnemo.stores.embed_progress import CountingEmbedder, Report
from mnemo.stores.embedders import Embedder
from mnemo.stores.files import read_json_object, write_text_atomic
from mnemo.stores.locks import WRITER_WAIT_SECONDS, writer
from mnemo.stores.vector_filter import id_filter, sql_quote
from mnemo.stores.vector_index import fold_new_rows, fts_language, has_id_index, index_ids, refresh_vector_index
from mnemo.stores.vector_ops import VectorOps
from mnemo.stores.vector_repair import (
    TableProblem,
    drop_duplicate_ids,
    open_table,
    reconcile_count,
    remove_table,
    write_lock,
)
from mnemo.stores.vector_rows import TEXT_COLUMN, embedding_windows, encode_window, mean_by_group, vectors_by_id

EMBED_BATCH = 512  # texts per encode call of a sync
_KEYS = ("id", "embed_hash", "meta_hash")
# a sync with more changed or gone groups reads every row's hashes, not a filter naming each group
MAX_GROUPS_FILTERED = 1000


@dataclass
class SyncStats:
    embedded: int = 0
    updated: int = 0
    deleted: int = 0
    total: int = 0
    index: str = "exact"


def import_lancedb() -> Any:
    """The `lancedb` module, imported by the runs that use vectors, not by every run. LanceDB
    imports the models of the Lance namespace REST client, whose package `__init__` also loads
    every API module of it (0.6 s of a 1.1-1.4 s import; LanceDB's local tables use none): that
    `__init__` is put off until a name of it is used (`defer_package_init`)."""
    first = "lancedb" not in sys.modules
    if first:
        defer_package_init("lance_namespace_urllib3_client")
    import lancedb

    if first:
        keep_out_of_collections()  # the library lives as long as the process: full collections skip it
    # index statistics without the IVF centroids (only row counts are read here); unset,
    # LanceDB warns on every statistics call that the default is about to change
    os.environ.setdefault("LANCE_INCLUDE_VECTOR_CENTROIDS", "false")
    return lancedb


class VectorStore(VectorOps):
    """LanceDB tables of one namespace, in its own directory."""

    def __init__(self, path: Path, index: VectorIndexConfig | None = None) -> None:
        self.path = Path(path)
        self.index = index or VectorIndexConfig()
        self._connection: Any | None = None
        self.problems: dict[str, TableProblem] = {}  # tables found unreadable by `table`
        self.text_language = "English"  # the stemmer of the full-text indexes (the notes' language)

    def _db(self) -> Any:
        """One LanceDB connection per store: tables are still opened afresh (so they show
        the latest writes), but its session keeps the indexes it has read in memory. A new
        connection per call re-read the ANN index each query: 570 ms at 1M rows against 18."""
        self.path.mkdir(parents=True, exist_ok=True)
        if self._connection is None:
            self._connection = import_lancedb().connect(str(self.path))
        return self._connection

    def table(self, name: str) -> Any | None:
        """The table, or None when there is none or it cannot be opened (then noted in `problems`)."""
        table, problem = open_table(self._db(), name)
        if problem is not None:
            self.problems[name] = problem
        return table

    @writer(lambda store: store.path.parent)
    def repair(self, name: str) -> list[str]:
        """Make the table writable and one row per id: an unreadable table is removed (the next
        sync rebuilds it), duplicate ids keep one row. Says what it did."""
        with write_lock(self.path, name):
            problem = self._repair_unreadable(name)
            table = self.table(name)
            removed = drop_duplicate_ids(table, name) if table is not None else 0
        return (["removed the table; the next ingest rebuilds it"] if problem else []) + (
            [f"removed {removed} duplicate rows"] if removed else [])

    def _repair_unreadable(self, name: str) -> TableProblem | None:
        """Remove the table when LanceDB cannot open it (the next sync rebuilds it); what was wrong."""
        if self.table(name) is not None or name not in self.problems:
            return None
        remove_table(self.path, name)
        return self.problems.pop(name)


    def table_names(self) -> list[str]:
        """The names of the store's tables, sorted (none before its first write)."""
        return sorted(self._db().list_tables().tables) if self.path.exists() else []

    def data_files(self) -> dict[str, int | None]:
        """Table name -> the files in its `data` folder (None when it has none), from the folders
        alone, without loading LanceDB: a local table is `<name>.lance/`, and each write adds a
        fragment, a file under its `data/`."""
        if not self.path.is_dir():
            return {}
        tables = sorted(p for p in self.path.glob("*.lance") if p.is_dir())
        return {p.name.removesuffix(".lance"): sum(1 for _ in os.scandir(p / "data")) if (p / "data").is_dir() else None
                for p in tables}

    @writer(lambda store: store.path.parent)
    def sync(self, name: str, rows: list[dict[str, Any]], embedder: Embedder, batch: int = EMBED_BATCH) -> SyncStats:
        """Make table `name` hold exactly `rows` (each with `id` and `embed_text`)."""
        with write_lock(self.path, name):
            self._repair_unreadable(name)
            table = self.table(name)
            stats = self._sync_rows(name, table, rows, _current(table), embedder, batch)
            reconcile_count(self.table(name), self.path, name, stats.total)
            self.count(name)  # kept for `mnemo status` while the table is unchanged (`vector_counts`)
            return stats

    @writer(lambda store: store.path.parent)
    def sync_groups(
        self, name: str, groups: list["RowGroup"], embedder: Embedder, column: str = "doc_id", batch: int = EMBED_BATCH,
        late: "LateGroups | None" = None, progress: Report | None = None,
    ) -> SyncStats:
        """`sync` of the groups' rows, following what changed. While the table is as the last
        `sync_groups` left it (the same version, committed at the same time) and the embedder is the
        same, only the rows of groups whose digest differs from that sync's are made, and they are
        compared with the table's rows of those groups and of groups gone since (found by `column`).
        Otherwise every group's rows are made and compared with the whole table, as `sync` does. The
        table ends the same either way; what the sync left is recorded beside it (`<name>.groups.json`).
        A table left unreadable is rebuilt; one holding more rows than the groups (two writers at
        once) is reconciled row by row. `late`, given the groups' keys, names more groups to keep,
        asked once the table is locked: rows written since the caller made its groups (`put_groups`);
        a late group with the key of one of `groups` replaces it (it was rewritten since).
        `progress` is told (embedded, to embed) as the passages are encoded."""
        with write_lock(self.path, name):
            self._repair_unreadable(name)
            if late is not None:
                fresher = late({g.key for g in groups})
                replaced = {g.key for g in fresher}
                groups = [g for g in groups if g.key not in replaced] + fresher
            stats = self._sync_groups(name, groups, embedder, column, batch, progress)
            if reconcile_count(self.table(name), self.path, name, stats.total):
                stats = self._sync_groups(name, groups, embedder, column, batch, progress)
            self.count(name)  # kept for `mnemo status`
            return stats

    @writer(lambda store: store.path.parent)
    def put_groups(
        self, name: str, groups: list["RowGroup"], embedder: Embedder, column: str = "doc_id",
        wait_seconds: float = WRITER_WAIT_SECONDS,
    ) -> SyncStats:
        """Make the table's rows of these groups (found by `column`) the groups' rows, leaving every
        other row as it is: a few rows written at once, between syncs. What the last `sync_groups`
        recorded is kept up to date, so the next sync compares only what changed. StoreLocked when
        the table is not free within `wait_seconds`. The ANN index is left to the next sync (rows
        written since it was built are searched exactly until then)."""
        with write_lock(self.path, name, wait_seconds):
            self._repair_unreadable(name)
            table = self.table(name)
            record = self.path / f"{name}.groups.json"
            known = _recorded_groups(record, _table_state(table) if table is not None else None, embedder.name)
            keys = ", ".join(sql_quote(g.key) for g in groups)
            current = _current(table, f"{column} IN ({keys})") if table is not None and groups else {}
            rows = [row for group in groups for row in group.rows()]
            stats = self._sync_rows(name, table, rows, current, embedder, EMBED_BATCH, ann=False)
            written = self.table(name)
            if known is not None and written is not None:
                digests = known | {g.key: g.digest for g in groups}
                state = {"embedder": embedder.name, "table": _table_state(written), "groups": digests}
                write_text_atomic(record, json.dumps(state))
            self.count(name)  # kept for `mnemo status`
            return stats

    def _sync_groups(
        self, name: str, groups: list["RowGroup"], embedder: Embedder, column: str, batch: int,
        progress: Report | None = None,
    ) -> SyncStats:
        table = self.table(name)
        record = self.path / f"{name}.groups.json"
        state = _table_state(table) if table is not None else None
        known = _recorded_groups(record, state, embedder.name)
        changed = groups if known is None else [g for g in groups if known.get(g.key) != g.digest]
        keys = [g.key for g in changed] + ([] if known is None else sorted(known.keys() - {g.key for g in groups}))
        if known is None or len(keys) > MAX_GROUPS_FILTERED:
            changed, current = groups, _current(table)
        else:
            current = _current(table, f"{column} IN ({', '.join(sql_quote(k) for k in keys)})") if keys else {}
        stats = self._sync_rows(
            name, table, [row for group in changed for row in group.rows()], current, embedder, batch,
            progress=progress,
        )
        stats.total = sum(g.size for g in groups)
        written = self.table(name)
        after = _table_state(written) if written is not None else None
        if after is not None and (keys or after != state):
            write_text_atomic(
                record,
                json.dumps({"embedder": embedder.name, "table": after, "groups": {g.key: g.digest for g in groups}}),
            )
        return stats

    def _sync_rows(
        self, name: str, table: Any | None, rows: list[dict[str, Any]], current: dict[str, tuple[str, str]],
        embedder: Embedder, batch: int, ann: bool = True, progress: Report | None = None,
    ) -> SyncStats:
        """Make the table's `current` rows (id -> hashes: all of them, or those of the groups being
        synced) the given `rows`; with `ann`, build or retrain the ANN index when it is due."""
        stats = SyncStats(total=len(rows))
        desired = {}
        for row in rows:
            row = dict(row)
            row["embed_hash"] = content_hash(embedder.name, row[TEXT_COLUMN])
            row["meta_hash"] = content_hash(
                json.dumps({k: v for k, v in row.items() if k != "embed_hash"}, sort_keys=True, default=str)
            )
            desired[row["id"]] = row
        doomed = [i for i in current if i not in desired]
        to_embed = [r for i, r in desired.items() if i not in current or current[i][0] != r["embed_hash"]]
        to_update = [
            r
            for i, r in desired.items()
            if i in current and current[i][0] == r["embed_hash"] and current[i][1] != r["meta_hash"]
        ]
        faults.point(f"vectors.delete:{name}", len(doomed) if table is not None else 0)
        if table is not None and doomed:
            for start in range(0, len(doomed), 1000):
                table.delete(id_filter(doomed[start:start + 1000]))
        encoder = embedder if progress is None else CountingEmbedder(embedder, len(to_embed), progress)
        for part, calls in embedding_windows(to_embed, batch):
            vectors = encode_window(encoder, part, calls)
            faults.point(f"vectors.upsert:{name}")
            table = self._upsert(name, table, part, vectors, new=not any(r["id"] in current for r in part))
        if to_update and table is not None:
            kept = _vectors(table, [r["id"] for r in to_update])
            faults.point(f"vectors.update:{name}")
            table = self._upsert(name, table, to_update, np.stack([kept[r["id"]] for r in to_update]))
        if table is not None:
            self._build_text_indexes(name, table)
            stats.index = refresh_vector_index(table, self.index) if ann else stats.index
            fold_new_rows(table)
        stats.embedded, stats.updated, stats.deleted = len(to_embed), len(to_update), len(doomed)
        return stats

    @writer(lambda store: store.path.parent)
    def stem_text_as(self, language: str, name: str = "chunks") -> bool:
        """Build the table's full-text index (and later ones of this store) with `language`'s
        stemmer (LanceDB's name), when its index has another; whether it was rebuilt."""
        self.text_language = language
        table = self.table(name)
        if table is None or fts_language(table) in (None, language):
            return False
        with write_lock(self.path, name):
            table.create_fts_index(TEXT_COLUMN, replace=True, language=language)
        return True

    def _build_text_indexes(self, name: str, table: Any) -> None:
        """The FTS and id indexes, built once; rows written later are folded in by `fold_new_rows`."""
        if fts_language(table) is None:
            faults.point(f"vectors.fts_index:{name}")
            table.create_fts_index(TEXT_COLUMN, replace=True, language=self.text_language)
        if not has_id_index(table):
            index_ids(table)

    def _upsert(
        self, name: str, table: Any | None, rows: list[dict[str, Any]], vectors: np.ndarray, new: bool = False
    ) -> Any:
        """Write rows with their vectors; rows whose ids the table does not hold yet are appended
        (no join against the whole table), others merged by id."""
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        data = pa.Table.from_pylist(rows).append_column(
            "vector", pa.FixedSizeListArray.from_arrays(flat, vectors.shape[1])
        )
        if table is None:
            return self._db().create_table(name, data=data)
        if new:
            table.add(data)
        else:
            table.merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)
        return table

    def dimension(self, name: str) -> int | None:
        table = self.table(name)
        if table is None:
            return None
        return table.schema.field("vector").type.list_size

    def document_means(self, name: str = "chunks") -> dict[str, np.ndarray]:
        """Document id -> the mean of its rows' vectors (a note's passages), for every document."""
        table = self.table(name)
        return {} if table is None else mean_by_group(
            table.search().select(["id", "doc_id", "vector"]).limit(None).to_arrow(), "doc_id")

    def dump(self, name: str) -> list[tuple[str, str, str]]:
        """Sorted (id, embed_hash, meta_hash) of every row, for comparisons."""
        return sorted((i, e, m) for i, (e, m) in _current(self.table(name)).items())


def _current(table: Any | None, where: str | None = None) -> dict[str, tuple[str, str]]:
    """Id -> (embed hash, meta hash) of the table's rows (those `where` selects, when given)."""
    if table is None:
        return {}
    search = table.search().select(list(_KEYS))
    data = (search.where(where) if where else search).limit(None).to_arrow().to_pylist()
    return {r["id"]: (r["embed_hash"], r["meta_hash"]) for r in data}


@dataclass
class RowGroup:
    """Rows of a table that change together (a document's chunks): `digest` changes whenever
    they may, and `rows()` makes them, called only when the digest differs from the last sync's.
    Each row's id belongs to one group, the one its group column names (a chunk's id digests its
    document's id)."""

    key: str
    digest: str
    size: int
    rows: Callable[[], list[dict[str, Any]]]


LateGroups = Callable[[set[str]], list[RowGroup]]


def _table_state(table: Any) -> list[Any]:
    """The table's version and when it was committed: what tells that someone wrote it since."""
    version = table.version
    return [version, next((str(v["timestamp"]) for v in table.list_versions() if v["version"] == version), None)]


def _recorded_groups(record: Path, state: list[Any] | None, embedder: str) -> dict[str, str] | None:
    """Group -> digest as the last `sync_groups` left the table, when the table is still in the
    state it left (`_table_state`) and that sync used the same embedder; else None."""
    kept = read_json_object(record)  # {} when absent or unreadable: every row is compared
    if state is None or kept.get("embedder") != embedder or kept.get("table") != state:
        return None
    groups = kept.get("groups")
    return groups if isinstance(groups, dict) else None


def _vectors(table: Any, ids: list[str]) -> dict[str, np.ndarray]:
    found: dict[str, np.ndarray] = {}
    for start in range(0, len(ids), 1000):
        part = ids[start:start + 1000]
        found.update(
            vectors_by_id(table.search().where(id_filter(part)).select(["id", "vector"]).limit(None).to_arrow())
        )
    return found
