"""Figures kept beside a store while the files they were counted from stay as they were.

`mnemo status` shows counts of the graph and the vector tables; opening Kùzu or importing
LanceDB to count them costs a second or more. A figure is kept in a small JSON record with an
identity of the files it was counted from (`file_stamp`s, a table's versions); it is reused while
that identity still holds, and counted afresh (then kept again) once any write, by any process,
has changed it. A figure is only kept when the identity was the same before and after counting,
so a write during the count is never recorded as its result. This module loads no store library.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mnemo.stores import durable

T = TypeVar("T")
GRAPH_FILE = "graph.kuzu"  # a namespace's graph database, in its folder
VECTORS_FOLDER = "lance"  # a namespace's vector tables, in its folder
NOTE_CARDS = "note_cards"  # the vector table of the notes' cards, one row per note (`recall.note_cards`)
INBOX_FOLDER = "inbox"  # a namespace's remembered memories, one JSON file each, in its folder


def file_stamp(path: Path) -> list[int] | None:
    """Size, modification time and inode of a file (None when absent): what tells that
    someone rewrote it."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino]


def read_json_object(path: Path) -> dict[str, Any]:
    """A JSON object kept between runs (a state or record file); {} when it is absent or damaged:
    such a file only saves work, and without it the work is done again."""
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def kept(
    record: Path, identity: Callable[[], Any], count: Callable[[], T | None], valid: Callable[[Any], bool],
) -> T | None:
    """What `count()` gives, or the figure kept in `record` when `identity()` (JSON-able, None when
    there is nothing to identify) is what it was when that figure was counted; `valid` checks a
    kept figure's shape. A fresh count is kept when nothing wrote while it was made, and when there
    is one (`count()` gives None for a store it could not read)."""
    before = identity()
    if before is not None:
        saved = read_json_object(record)
        if saved.get("identity") == before and valid(saved.get("figure")):
            figure: T = saved["figure"]
            return figure
    counted = count()
    if counted is not None and before is not None and before == identity():
        _keep_record(record, {"identity": before, "figure": counted})  # a read-only store is counted each time
    return counted


def graph_identity(graph: Path) -> list[list[int] | None] | None:
    """The graph database's file and its write-ahead log, stamped (None without the database).
    Every writer checkpoints into the file as it closes, and a restore or rebuild replaces it."""
    stamp = file_stamp(graph)
    return None if stamp is None else [stamp, file_stamp(graph.with_name(graph.name + ".wal"))]


def graph_counts(graph: Path, count: Callable[[], dict[str, int]]) -> dict[str, int]:
    """Rows per graph table: kept in `graph.counts.json` beside the database while it is unchanged."""
    def valid(figure: Any) -> bool:
        return isinstance(figure, dict) and all(isinstance(v, int) for v in figure.values())

    return kept(_counts_record(graph), lambda: graph_identity(graph), count, valid) or {}


def _counts_record(graph: Path) -> Path:
    return graph.with_name("graph.counts.json")


def _applied_record(graph: Path) -> Path:
    return graph.with_name("graph.applied.json")


def applied_before(graph: Path, digest: str) -> bool:
    """Whether the graph is as the write of the facts with `digest` left it: that write was kept
    (`keep_applied`) and nothing has written the database since."""
    saved = read_json_object(_applied_record(graph))
    identity = graph_identity(graph)
    return identity is not None and saved.get("digest") == digest and saved.get("identity") == identity


def keep_applied(graph: Path, digest: str, counts: dict[str, int]) -> None:
    """Keep that the graph, as it is now, holds the facts with `digest` and `counts` rows per table
    (counted by their write before it closed the database; kept after it closed it): the next write
    of the same facts is skipped, and `mnemo status` shows the counts without opening the graph."""
    identity = graph_identity(graph)
    if identity is not None:
        _keep_record(_applied_record(graph), {"identity": identity, "digest": digest})
        _keep_record(_counts_record(graph), {"identity": identity, "figure": counts})


def _keep_record(record: Path, content: dict[str, Any]) -> None:
    try:
        durable.write_text(record, json.dumps(content), f"kept:{record.name}")
    except OSError:
        pass  # a read-only store: the work is done again next time
