"""Per-document pieces of the structural extraction, kept between runs.

The structural extractor builds a namespace's facts step by step; most steps add, for one
document at a time, rows that depend only on that document, its chunks and a little of the
rest of the namespace (where its links lead, which names are known). Each such piece is a
`Fragment`, stored under the document's id with a key that digests everything the piece was
computed from; a later run reuses the piece while its key is the same and recomputes it
otherwise. Fragments are merged into the facts in the order a full run adds them, with the
same first-row-wins rule for nodes, so the facts are the same whichever pieces were reused.

The pieces are kept in a few JSON files under the namespace's data directory: data only, so
a file from anywhere (an imported export, a restored backup) can at worst be wrong, never run
code; a file that is not what this version wrote is dropped and its pieces recomputed. Only
the files whose pieces changed are rewritten.
"""

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

import orjson

from mnemo.facts import GraphFacts, row_hash
from mnemo.stores.files import write_bytes_atomic

CACHE_VERSION = "2"
SHARDS = 16
SUFFIX = ".json"
T = TypeVar("T")
K = TypeVar("K")


class Rows(Protocol):
    """The node and edge rows of a Fragment or a GraphFacts, as `absorb` reads them."""

    @property
    def nodes(self) -> Mapping[str, Mapping[str, dict[str, Any]]]: ...

    @property
    def edges(self) -> Mapping[tuple[str, str, str], Mapping[str, dict[str, Any]]]: ...


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


def absorb(facts: GraphFacts, part: Rows) -> None:
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
            remove_unsafe_files(folder)
            for i in range(SHARDS):
                self.shards[i] = self._load(folder / f"{i:02d}{SUFFIX}")

    def _load(self, path: Path) -> dict[str, dict[str, tuple[str, Any]]]:
        try:
            stored = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}  # missing or damaged: it only costs a recomputation
        if not isinstance(stored, dict) or stored.get("salt") != self.salt:
            return {}
        if not isinstance(stored.get("entries"), dict):
            return {}
        try:
            return {doc: {step: (key, decode(value)) for step, (key, value) in steps.items()}
                    for doc, steps in stored["entries"].items()}
        except (TypeError, ValueError, KeyError, AttributeError):
            return {}  # not what this version writes: recomputed

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
            entries = {doc: {step: [key, encode(value)] for step, (key, value) in steps.items()}
                       for doc, steps in self.shards[i].items()}
            data = orjson.dumps({"salt": self.salt, "entries": entries}, option=_STRICT)
            write_bytes_atomic(self.folder / f"{i:02d}{SUFFIX}", data)
        self.dirty.clear()


def remove_unsafe_files(folder: Path) -> None:
    """Delete pieces kept by older versions in a format that can run code when read (pickle):
    they are never loaded; their pieces are recomputed."""
    for path in folder.glob("*.pickle"):
        path.unlink(missing_ok=True)


_STRICT = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS


def encode(value: Any) -> dict[str, Any]:
    """A kept piece as plain JSON data: a Fragment or GraphFacts (rows per table, edge tables
    as [table, from, to, rows]) or a list of string pairs."""
    if isinstance(value, (Fragment, GraphFacts)):
        kind = "fragment" if isinstance(value, Fragment) else "facts"
        edges = [[*key, rows if type(rows) is dict else dict(rows)] for key, rows in value.edges.items()]
        return {"kind": kind, "nodes": value.nodes, "edges": edges}
    if isinstance(value, list) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return {"kind": "pairs", "pairs": value}
    raise TypeError(f"a structural piece of type {type(value).__name__} cannot be kept")


def decode(data: dict[str, Any]) -> Any:
    """The piece `encode` made `data` from (ValueError/KeyError/TypeError on anything else)."""
    kind = data["kind"]
    if kind == "pairs":
        pairs = [(a, b) for a, b in data["pairs"]]
        if not all(isinstance(a, str) and isinstance(b, str) for a, b in pairs):
            raise ValueError("pairs that are not strings")
        return pairs
    if kind not in ("fragment", "facts"):
        raise ValueError(f"unknown piece kind {kind!r}")
    part: Fragment | GraphFacts = Fragment() if kind == "fragment" else GraphFacts()
    part.nodes.update(_tables(data["nodes"].items()))
    part.edges.update(_tables(((t, a, b), rows) for t, a, b, rows in data["edges"]))
    return part


def _tables(tables: Iterable[tuple[K, Any]]) -> Iterator[tuple[K, dict[str, dict[str, Any]]]]:
    """(name, rows by id) pairs, each checked to be JSON objects of JSON objects."""
    for name, rows in tables:
        if not isinstance(rows, dict) or not all(type(row) is dict for row in rows.values()):
            raise ValueError(f"table {name!r} does not hold rows")
        yield name, rows
