"""Held chunks kept up to date cheaply: when the chunks table has a new version (a `remember` put a
few rows, a sync rewrote some), recall holds the new version by reading each row's id and address
(`_rowid`), dropping the rows gone and taking the new ones by address, instead of reading and
converting the whole table again (on a 10k-passage table, the whole read took 30-50 ms).

A row's address stays the row's until the row is deleted (a rewritten row is deleted and added
again, at a new address); compaction moves every row, and then more than a tenth of the rows look
changed and the whole table is read again, as it is when the table is older than the held rows
(recreated), when an address holds another id, and for tables under FOLLOW_FROM_ROWS rows (whose
whole read is as quick).
"""

from typing import Any

import numpy as np
import pyarrow as pa

from mnemo.recall.search import ROW_COLUMNS, HeldChunks
from mnemo.stores.vector_table import VectorTable

CHANGED_SHARE = 10  # more than 1/CHANGED_SHARE of the rows changed: read the whole table
FOLLOW_FROM_ROWS = 4000  # smaller tables are read whole: as fast as reading ids and addresses (2k: 13 ms vs 12)
MAX_CHUNKS = 16  # the held Arrow rows are made one chunk again when they have more chunks


def refreshed(held: HeldChunks | None, table: VectorTable, follow_from: int = FOLLOW_FROM_ROWS) -> HeldChunks:
    """The held rows of the table's current version: `held` (another version's) with the rows that
    changed, or the whole table when there is no `held`, it holds under `follow_from` rows, or it
    cannot be followed."""
    if held is None or table.version < held.version or len(held.ids) < follow_from:
        return HeldChunks(table)
    now = table.select(["id"], row_ids=True)
    rowids = now["_rowid"].to_numpy()
    keep = np.isin(held.rowids, rowids)
    new = rowids[~np.isin(rowids, held.rowids)]
    if int((~keep).sum()) + len(new) > len(rowids) // CHANGED_SHARE or not _same_ids(held, keep, now):
        return HeldChunks(table)
    if not len(new):
        return _joined(held, keep, None, table.version)
    added = table.at(new.tolist(), ROW_COLUMNS, with_row_ids=True)
    if added.num_rows != len(new):  # written again meanwhile
        return HeldChunks(table)
    return _joined(held, keep, HeldChunks(table, added), table.version)


def _same_ids(held: HeldChunks, keep: np.ndarray, now: pa.Table) -> bool:
    """Whether each kept address still holds the id held for it."""
    by_rowid = dict(zip(now["_rowid"].to_pylist(), now["id"].to_pylist()))
    return all(by_rowid[r] == i for r, i, k in zip(held.rowids.tolist(), held.ids, keep.tolist()) if k)


def _joined(held: HeldChunks, keep: np.ndarray, added: HeldChunks | None, version: int) -> HeldChunks:
    """The held rows that are kept, then the added ones, as one HeldChunks (derived arrays are
    filtered and extended, not made again; when every row is kept, the Arrow rows are not copied)."""
    out = object.__new__(HeldChunks)
    every = bool(keep.all())
    picked = keep.tolist()

    def kept(values: list[Any]) -> list[Any]:
        return list(values) if every else [v for v, k in zip(values, picked) if k]

    def joined(old: np.ndarray, new: np.ndarray | None) -> np.ndarray:
        return np.concatenate([old if every else old[keep]] + ([new] if new is not None else []))

    parts = [held.data if every else held.data.filter(pa.array(picked, type=pa.bool_()))]
    parts += [added.data.select(held.data.column_names).cast(held.data.schema)] if added else []
    data = pa.concat_tables(parts)
    out.version, out.data = version, data.combine_chunks() if data["id"].num_chunks > MAX_CHUNKS else data
    out.ids = kept(held.ids) + (added.ids if added else [])
    out.offset = {row_id: n for n, row_id in enumerate(out.ids)}
    out.rowids = joined(held.rowids, added.rowids if added else None)
    out.vectors = joined(held.vectors, added.vectors if added else None)
    out.norms = joined(held.norms, added.norms if added else None)
    out.timestamps = joined(held.timestamps, added.timestamps if added else None)
    out.prev = kept(held.prev) + (added.prev if added else [])
    out.next = kept(held.next) + (added.next if added else [])
    out.doc_ids = kept(held.doc_ids) + (added.doc_ids if added else [])
    out.metadata = kept(held.metadata) + (added.metadata if added else [])
    out._by_doc = None
    return out
