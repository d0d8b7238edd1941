"""Row counts of LanceDB tables without importing LanceDB, when nothing has written since.

`mnemo status` needs two numbers from the vector store, and importing LanceDB costs a second or
more. Every write to a Lance table adds a manifest file under `<table>.lance/_versions/`, so the
names there identify the table's version: a count is kept beside the tables in
`<table>.rows.json` with that identity and reused while it still matches. Any write (ingest,
forget, compaction, by any process) changes the identity, and the next count asks LanceDB.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemo.stores.kept import kept


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


def counted_rows(lance_dir: Path, name: str, count: Callable[[], int | None]) -> int:
    """The table's row count: the kept one when the table has not changed since, else `count()`
    (which opens the table; None when it cannot, counted as 0 and not kept), then kept for next time."""
    def valid(figure: Any) -> bool:
        return isinstance(figure, int)

    return kept(lance_dir / f"{name}.rows.json", lambda: table_version(lance_dir, name), count, valid) or 0
