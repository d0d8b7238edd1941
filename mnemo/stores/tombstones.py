"""Tombstones: what a person asked mnemo to forget, kept so re-ingest never brings it back.

Ids are content-addressed, so an unchanged source produces the same chunk, document and
entity ids on every run; the ingest steps drop whatever a tombstone names, and recall
filters it too. The file is `<data_dir>/<namespace>/tombstones.json`, written atomically.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mnemo.documents import Chunk
from mnemo.facts import GraphFacts, row_hash
from mnemo.stores import durable

FILE = "tombstones.json"


@dataclass
class Tombstones:
    chunks: set[str] = field(default_factory=set)
    docs: set[str] = field(default_factory=set)
    entities: set[str] = field(default_factory=set)
    properties: set[tuple[str, str]] = field(default_factory=set)
    relations: set[tuple[str, str]] = field(default_factory=set)

    @classmethod
    def load(cls, root: Path) -> "Tombstones":
        path = Path(root) / FILE
        if not path.exists():
            return cls()
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            set(data.get("chunks", [])), set(data.get("docs", [])), set(data.get("entities", [])),
            {tuple(p) for p in data.get("properties", [])}, {tuple(r) for r in data.get("relations", [])},
        )

    def stored(self) -> dict[str, list[Any]]:
        """The tombstones as sorted lists (how they are written)."""
        return {"chunks": sorted(self.chunks), "docs": sorted(self.docs), "entities": sorted(self.entities),
                "properties": sorted(self.properties), "relations": sorted(self.relations)}

    def save(self, root: Path) -> None:
        durable.write_json(Path(root) / FILE, self.stored(), "tombstones")

    def merge(self, other: "Tombstones") -> None:
        for name in ("chunks", "docs", "entities", "properties", "relations"):
            getattr(self, name).update(getattr(other, name))

    def __bool__(self) -> bool:
        return any((self.chunks, self.docs, self.entities, self.properties, self.relations))

    def hides(self, chunk_id: str, doc_id: str) -> bool:
        return chunk_id in self.chunks or doc_id in self.docs

    def filter_chunks(self, chunks: list[Chunk]) -> list[Chunk]:
        return [c for c in chunks if not self.hides(c.id, c.doc_id)]

    def filter_facts(self, facts: GraphFacts) -> GraphFacts:
        """The facts without anything forgotten: nodes, their edges, stripped properties."""
        if not self:
            return facts
        out = GraphFacts()
        gone: set[str] = set(self.entities) | set(self.docs) | set(self.chunks)
        for table, rows in facts.nodes.items():
            for row_id, row in rows.items():
                if self._drops(table, row):
                    gone.add(row_id)
                    continue
                out.nodes.setdefault(table, {})[row_id] = self._stripped(table, row)
        for key, edge_rows in facts.edges.items():
            for row in edge_rows.values():
                if row["src"] not in gone and row["dst"] not in gone and not self._drops_relation(key[0], row):
                    out.add_edge(*key, row)
        return out

    def _drops(self, table: str, row: dict[str, Any]) -> bool:
        if table == "Chunk":
            return self.hides(row["id"], row["doc_id"])
        if table == "Alias":
            return row["entity_id"] in self.entities or row["doc_id"] in self.docs
        return row["id"] in self.entities or row["id"] in self.docs

    def _stripped(self, table: str, row: dict[str, Any]) -> dict[str, Any]:
        drop = {p for e, p in self.properties if table == "Entity" and e == row["id"]}
        if not drop:
            return row
        properties = {k: v for k, v in json.loads(row["properties"] or "{}").items() if k not in drop}
        row = {**row, "properties": json.dumps(properties, sort_keys=True, ensure_ascii=False)}
        row["h"] = row_hash(row)
        return row

    def _drops_relation(self, table: str, row: dict[str, Any]) -> bool:
        names = {table.lower(), (row.get("role") or "").lower()}
        return any(e in (row["src"], row["dst"]) and r.lower() in names for e, r in self.relations)
