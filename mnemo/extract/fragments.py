"""Per-document pieces of the structural extraction, kept between runs.

The structural extractor builds a namespace's facts step by step; most steps add, for one
document at a time, rows that depend only on that document, its chunks and a little of the
rest of the namespace (where its links lead, which names are known). Each such piece is a
`Fragment`, stored under the document's id with a key that digests everything the piece was
computed from; a later run reuses the piece while its key is the same and recomputes it
otherwise. Fragments are merged into the facts in the order a full run adds them, with the
same first-row-wins rule for nodes, so the facts are the same whichever pieces were reused.

The pieces are kept in a few pickle files under the namespace's data directory (written by
mnemo itself, read only by it); only the files whose pieces changed are rewritten.
"""

import os
import pickle
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from mnemo.extract.facts import row_hash

CACHE_VERSION = "1"
SHARDS = 16
T = TypeVar("T")


class Rows(Protocol):
    nodes: dict[str, dict[str, dict[str, Any]]]
    edges: dict[tuple[str, str, str], dict[str, dict[str, Any]]]


class Fragment:
    """The node and edge rows one step adds for one document."""

    __slots__ = ("nodes", "edges")

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, dict[str, Any]]] = {}
        self.edges: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}

    def add_node(self, table: str, row: dict[str, Any]) -> None:
        row = dict(row)
        row["h"] = row_hash(row)
        self.nodes.setdefault(table, {})[row["id"]] = row

    def add_edge(self, table: str, from_table: str, to_table: str, row: dict[str, Any]) -> None:
        self.edges.setdefault((table, from_table, to_table), {})[row["id"]] = row

    def node(self, table: str, row_id: str) -> dict[str, Any] | None:
        return self.nodes.get(table, {}).get(row_id)


def absorb(facts: Rows, part: Rows) -> None:
    """Merge a fragment into the facts: a node already there stays (the first one added wins,
    as in a full run, where later steps only add a node that is missing), an edge is set."""
    for table, rows in part.nodes.items():
        target = facts.nodes.setdefault(table, {})
        for row_id, row in rows.items():
            target.setdefault(row_id, row)
    for key, rows in part.edges.items():
        facts.edges.setdefault(key, {}).update(rows)


class FragmentCache:
    """Fragments per document id and step, each with the key it was computed under.

    `folder` None keeps nothing between runs (a plain full extraction). `salt` digests what
    every fragment depends on (extractor version, namespace, ontology, speaker settings): a
    different salt discards everything kept.
    """

    def __init__(self, folder: Path | None = None, salt: str = "") -> None:
        self.folder = folder
        self.salt = f"{CACHE_VERSION}:{salt}"
        self.shards: list[dict[str, dict[str, tuple[str, Any]]]] = [{} for _ in range(SHARDS)]
        self.dirty: set[int] = set()
        self.hits = 0
        self.misses = 0
        if folder is not None:
            for i in range(SHARDS):
                self.shards[i] = self._load(folder / f"{i:02d}.pickle")

    def _load(self, path: Path) -> dict[str, dict[str, tuple[str, Any]]]:
        if not path.exists():
            return {}
        try:
            with path.open("rb") as f:
                stored = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            return {}  # a damaged cache only costs a recomputation
        return stored["entries"] if isinstance(stored, dict) and stored.get("salt") == self.salt else {}

    @staticmethod
    def _shard(doc_id: str) -> int:
        return zlib.crc32(doc_id.encode("utf-8")) % SHARDS

    def get(self, step: str, doc_id: str, key: str, make: Callable[[], T]) -> T:
        """The fragment of `step` for `doc_id` computed under `key`: kept, or made now."""
        shard = self._shard(doc_id)
        entry = self.shards[shard].setdefault(doc_id, {})
        kept = entry.get(step)
        if kept is not None and kept[0] == key:
            self.hits += 1
            return kept[1]
        self.misses += 1
        value = make()
        entry[step] = (key, value)
        self.dirty.add(shard)
        return value

    def keep_only(self, doc_ids: set[str]) -> None:
        """Forget the fragments of documents that are gone."""
        for i, entries in enumerate(self.shards):
            gone = [d for d in entries if d and d not in doc_ids]
            for doc_id in gone:
                del entries[doc_id]
            if gone:
                self.dirty.add(i)

    def save(self) -> None:
        """Rewrite the files whose fragments changed (atomically, like every table)."""
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        for i in sorted(self.dirty):
            path = self.folder / f"{i:02d}.pickle"
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".{path.name}.", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as f:
                    pickle.dump({"salt": self.salt, "entries": self.shards[i]}, f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        self.dirty.clear()
