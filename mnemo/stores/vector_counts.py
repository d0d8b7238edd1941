"""Row counts of LanceDB tables without importing LanceDB, when nothing has written since.

`mnemo status` needs two numbers from the vector store, and importing LanceDB costs a second or
more. Every write to a Lance table adds a manifest file under `<table>.lance/_versions/`, so the
names there identify the table's version: a count is kept beside the tables in
`<table>.rows.json` with that identity and reused while it still matches. Any write (ingest,
forget, compaction, by any process) changes the identity, and the next count asks LanceDB.
"""

import json
from collections.abc import Callable
from pathlib import Path

from mnemo.stores.files import read_json_object, write_text_atomic


def table_version(lance_dir: Path, name: str) -> str | None:
    """An identity of the table's current version: its newest and oldest manifest and how many
    there are (Lance names manifests by version, ascending or, in its newer scheme, descending)."""
    versions = lance_dir / f"{name}.lance" / "_versions"
    try:
        numbers = sorted(int(p.name.split(".")[0]) for p in versions.iterdir() if p.name.endswith(".manifest"))
    except (OSError, ValueError):
        return None
    if not numbers:
        return None
    return f"{numbers[0]}-{numbers[-1]}-{len(numbers)}"


def counted_rows(lance_dir: Path, name: str, count: Callable[[], int]) -> int:
    """The table's row count: the kept one when the table has not changed since, else `count()`
    (which opens the table), then kept for next time."""
    version = table_version(lance_dir, name)
    kept = lance_dir / f"{name}.rows.json"
    if version is not None:
        saved = read_json_object(kept)
        if saved.get("version") == version and isinstance(saved.get("rows"), int):
            return int(saved["rows"])
    rows = count()
    if version is not None and version == table_version(lance_dir, name):  # no write while counting
        try:
            write_text_atomic(kept, json.dumps({"version": version, "rows": rows}))
        except OSError:
            pass  # a read-only store is counted each time
    return rows
