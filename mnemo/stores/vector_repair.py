"""Partial states a LanceDB table can be left in, found and repaired.

A process killed while LanceDB creates a table can leave its folder without a version LanceDB
can open (`chunks.lance/` empty, or data files without a manifest): LanceDB then lists the table
but cannot open it. Its rows are derived (chunks and entities from the pipeline's state), so the
repair is to remove the folder and let the next sync rebuild the table. Two writers that ran at
once could have left two rows with one id; the repair keeps one of them.
"""

import shutil
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from mnemo.stores import faults
from mnemo.stores.locks import WRITER_WAIT_SECONDS, file_lock

# What LanceDB raises for a table folder it lists but cannot open (`Table 'x' was not found`
# for a folder without a version, an I/O or format error for a damaged manifest).
UNREADABLE_ERRORS = (ValueError, OSError, RuntimeError)
ID_BATCH = 1000


@dataclass(frozen=True)
class TableProblem:
    """What is wrong with one table, said for a person."""

    table: str
    problem: str

    def __str__(self) -> str:
        return f"vector table {self.table!r}: {self.problem}"


def open_table(db: Any, name: str) -> tuple[Any | None, TableProblem | None]:
    """(the table, None), (None, None) when there is none, or (None, the problem) when its folder
    exists but LanceDB cannot open it."""
    if name not in db.list_tables().tables:
        return None, None
    try:
        return db.open_table(name), None
    except UNREADABLE_ERRORS as exc:
        return None, TableProblem(
            name, f"unreadable ({exc}); the next ingest rebuilds it (`mnemo doctor --fix` removes it now)"
        )


def remove_table(folder: Path, name: str) -> None:
    """Remove a table's folder and what a sync recorded beside it, so it is rebuilt from scratch."""
    faults.point(f"vectors.repair:{name}")
    shutil.rmtree(folder / f"{name}.lance", ignore_errors=False)
    (folder / f"{name}.groups.json").unlink(missing_ok=True)


def write_lock(folder: Path, name: str, wait_seconds: float = WRITER_WAIT_SECONDS) -> AbstractContextManager[None]:
    """One sync of a table at a time, across processes: what a sync reads and decides stays true
    until it has written (two ingests at once would both append the same new rows)."""
    return file_lock(
        folder / f".{name}.write.lock", True, wait_seconds, f"vector table {name!r} is being written"
    )


def reconcile_count(table: Any | None, folder: Path, name: str, expected: int) -> bool:
    """After a sync: when the table holds another number of rows than wanted, drop duplicate ids
    and forget what the last sync recorded (the next comparison reads every row); True then."""
    if table is None or table.count_rows() == expected:
        return False
    drop_duplicate_ids(table, name)
    (folder / f"{name}.groups.json").unlink(missing_ok=True)
    return True


def duplicate_ids(table: Any) -> list[str]:
    """Ids that more than one row of the table holds."""
    ids = table.search().select(["id"]).limit(None).to_arrow()["id"]
    counts = pc.value_counts(ids)
    return sorted(
        str(v) for v, n in zip(counts.field("values").to_pylist(), counts.field("counts").to_pylist()) if n > 1
    )


def drop_duplicate_ids(table: Any, name: str) -> int:
    """Keep one row of each id held by several; returns how many rows were removed."""
    from mnemo.stores.vector_filter import id_filter

    removed = 0
    doubled = duplicate_ids(table)
    for start in range(0, len(doubled), ID_BATCH):
        batch = doubled[start:start + ID_BATCH]
        rows = table.search().where(id_filter(batch)).limit(None).to_arrow()
        rows = rows.drop_columns([c for c in rows.column_names if c.startswith("_")])
        keep = _first_of_each(rows)
        faults.point(f"vectors.dedupe:{name}")
        table.delete(id_filter(batch))
        table.add(keep)
        removed += rows.num_rows - keep.num_rows
    return removed


def _first_of_each(rows: pa.Table) -> pa.Table:
    seen: set[str] = set()
    keep = []
    for i, row_id in enumerate(rows["id"].to_pylist()):
        if row_id not in seen:
            seen.add(row_id)
            keep.append(i)
    return rows.take(keep)
