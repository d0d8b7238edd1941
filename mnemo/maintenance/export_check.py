"""What an export folder must be before an import replaces anything.

Every file an export holds is listed in its `export.json` with its size and SHA-256
(format version 2): a file missing, added or changed by even one byte is refused. In every
version, each Parquet file is read to its last row, the graph's tables must have this
version's columns, and the graph and vector tables must hold the rows `export.json` counts.
Every refusal names the file and the problem.
"""

import hashlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mnemo.errors import MnemoError
from mnemo.stores.graph_schema import EDGE_PROPS, NODE_SCHEMAS

EDGE_ENDS = ("table", "from_table", "to_table", "src", "dst")


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


def check_files(folder: Path, listed: object, index_name: str) -> None:
    """Every file listed, with its size and digest, and nothing else."""
    if not isinstance(listed, dict) or not all(isinstance(m, dict) for m in listed.values()):
        raise ExportError(f"{folder / index_name}: its list of files is not readable")
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {index_name}
    missing, extra = sorted(set(listed) - present), sorted(present - set(listed))
    if missing:
        raise ExportError(f"{folder / missing[0]}: missing (listed in {index_name}); nothing was imported")
    if extra:
        raise ExportError(f"{folder / extra[0]}: not listed in {index_name}; nothing was imported")
    for rel, meta in sorted(listed.items()):
        path = folder / rel
        if path.stat().st_size != meta.get("bytes") or sha256_of(path) != meta.get("sha256"):
            raise ExportError(f"{path}: damaged (size or checksum differs from {index_name}); nothing was imported")


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
