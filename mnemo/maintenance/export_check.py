"""What an export folder must be before an import replaces anything.

Every file an export holds is listed in its `export.json` with its size and SHA-256
(format version 2): a file missing, added or changed by even one byte is refused. In every
version, each Parquet file is read to its last row, the graph's tables must have this
version's columns, and the graph and vector tables must hold the rows `export.json` counts.
Every file must be a plain file (no link of either kind, device or fifo) with an allowed name
(`archive_guard`), and what the import writes is bounded by the configuration's `archives`. Every refusal
names the file and the problem.
"""

import hashlib
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mnemo.config import ArchivesConfig
from mnemo.errors import MnemoError
from mnemo.maintenance.archive_guard import check_size, regular_files
from mnemo.stores.graph_schema import EDGE_PROPS, NODE_SCHEMAS

EDGE_ENDS = ("table", "from_table", "to_table", "src", "dst")
_VECTOR_TABLE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,99}", re.ASCII)


class ExportError(MnemoError):
    """An export cannot be written or read back."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_digests(folder: Path, index_name: str) -> dict[str, dict[str, Any]]:
    """Size and SHA-256 of every file under `folder` but the index, by POSIX relative path."""
    return {
        p.relative_to(folder).as_posix(): {"bytes": p.stat().st_size, "sha256": sha256_of(p)}
        for p in sorted(folder.rglob("*")) if p.is_file() and p.relative_to(folder).as_posix() != index_name
    }


def check_files(folder: Path, listed: object, index_name: str) -> dict[str, int]:
    """Every file listed, with its size and digest, and nothing else: plain files only, walked
    without following links (`regular_files`). The files found, with their sizes."""
    if not isinstance(listed, dict) or not all(isinstance(m, dict) for m in listed.values()):
        raise ExportError(f"{folder / index_name}: its list of files is not readable")
    found = present_files(folder, index_name)
    missing, extra = sorted(set(listed) - set(found)), sorted(set(found) - set(listed))
    if missing:
        raise ExportError(f"{folder / str(missing[0])}: missing (listed in {index_name}); nothing was imported")
    if extra:
        raise ExportError(f"{folder / extra[0]}: not listed in {index_name}; nothing was imported")
    for rel, meta in sorted(listed.items()):
        path = folder / rel
        if found[rel] != meta.get("bytes") or sha256_of(path) != meta.get("sha256"):
            raise ExportError(f"{path}: damaged (size or checksum differs from {index_name}); nothing was imported")
    return found


def present_files(folder: Path, index_name: str) -> dict[str, int]:
    """The export's files but its index (relative POSIX path -> size); links and devices refused."""
    found = regular_files(folder)
    found.pop(index_name, None)
    return found


def check_import_size(folder: Path, found: dict[str, int], limits: ArchivesConfig) -> None:
    """What an import writes (state files as they are, Parquet tables as their metadata says they
    unpack) within `limits` of the export's size, from the Parquet footers, before any table is read."""
    total = 0
    for rel, size in found.items():
        if rel.endswith(".parquet") and not rel.startswith("state/"):
            try:
                meta = pq.read_metadata(folder / rel)
            except (OSError, pa.ArrowException) as exc:
                raise ExportError(f"{folder / rel}: not a readable Parquet file ({exc}); nothing imported") from None
            size = max(size, sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)))
        total += size
    check_size(total, sum(found.values()), limits, folder)


def read_table(path: Path) -> pa.Table:
    """A Parquet file read to its last row, or an ExportError naming it."""
    try:
        return pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        raise ExportError(f"{path}: not a readable Parquet file ({exc}); nothing was imported") from None


def check_tables(folder: Path, index: dict[str, Any]) -> None:
    """Every Parquet file readable; graph tables with this version's columns; row counts and
    vector sizes as the index says."""
    rows, dims = index.get("rows"), index.get("dimensions") or {}
    if not isinstance(rows, dict) or not isinstance(dims, dict):
        raise ExportError(f"{folder}: export.json has no readable row counts")
    seen: set[str] = set()
    for path in sorted(folder.rglob("*.parquet")):
        table = read_table(path)
        kind, name = path.parent.relative_to(folder).as_posix(), path.stem
        if kind == "graph":
            _check_columns(path, name, table.schema.names)
        if kind == "vectors" and not _VECTOR_TABLE.fullmatch(name):
            raise ExportError(f"{path}: {name!r} is not a vector table name (letters, digits, '_' and '-')")
        if kind in ("graph", "vectors"):
            seen.add(f"{kind}/{name}")
            _check_count(path, table.num_rows, rows.get(f"{kind}/{name}"))
        if kind == "vectors" and dims.get(name) is not None:
            _check_dimension(path, table.schema, dims[name])
    absent = sorted(set(rows) - seen)
    if absent:
        raise ExportError(f"{folder / absent[0]}.parquet: missing (export.json counts its rows); nothing was imported")


def _check_columns(path: Path, name: str, columns: list[str]) -> None:
    if name != "edges" and name not in NODE_SCHEMAS:
        raise ExportError(f"{path}: node table {name!r} is unknown to this version of mnemo")
    expected = [*EDGE_ENDS, *EDGE_PROPS] if name == "edges" else list(NODE_SCHEMAS[name])
    if set(columns) != set(expected):
        raise ExportError(f"{path}: columns {sorted(set(columns) ^ set(expected))} differ from this version's")


def _check_count(path: Path, found: int, expected: object) -> None:
    if found != expected:
        raise ExportError(f"{path}: {found} rows, but export.json says {expected}; nothing was imported")


def _check_dimension(path: Path, schema: pa.Schema, expected: object) -> None:
    field = schema.field("vector") if "vector" in schema.names else None
    size = getattr(field.type, "list_size", None) if field is not None else None
    if size != expected:
        raise ExportError(f"{path}: vectors of size {size}, but export.json says {expected}")
