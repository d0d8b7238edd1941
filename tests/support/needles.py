"""Looking for a piece of text in the bytes mnemo keeps: files as they are, Parquet decoded, tar
archives member by member, and every version of every LanceDB table."""

import io
import json
import tarfile
from pathlib import Path

import pyarrow.parquet as pq

from mnemo.stores.vectors import import_lancedb


def _holds(data: bytes, name: str, needle: str) -> bool:
    """Whether a file's bytes hold the needle: as they are, decoded when Parquet (compressed
    pages), and member by member when a tar archive."""
    if needle.encode() in data:
        return True
    if name.endswith(".parquet"):
        return needle in json.dumps(pq.read_table(io.BytesIO(data)).to_pylist(), default=str, ensure_ascii=False)
    if name.endswith((".tar", ".tar.gz")):
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            return any(_holds(tar.extractfile(m).read(), m.name, needle) for m in tar.getmembers() if m.isfile())
    return False


def holders(root: Path, needle: str) -> list[str]:
    """Every file under `root` (or `root` itself) that holds the needle, relative to `root`."""
    paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return [p.relative_to(root).as_posix() if p != root else p.name
            for p in paths if _holds(p.read_bytes(), p.name, needle)]


def lance_versions_holding(lance: Path, needle: str) -> list[str]:
    """Table versions (time travel) whose rows hold the needle."""
    db = import_lancedb().connect(str(lance))
    found = []
    for name in db.list_tables().tables:
        table = db.open_table(name)
        for version in table.list_versions():
            table.checkout(version["version"])
            rows = table.to_arrow().drop_columns(["vector"]).to_pylist()
            if needle in json.dumps(rows, default=str, ensure_ascii=False):
                found.append(f"{name}@{version['version']}")
    return found
