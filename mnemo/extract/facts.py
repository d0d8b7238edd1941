"""GraphFacts: the desired content of a namespace's graph, as plain rows per table."""

import json
from dataclasses import dataclass, field
from typing import Any

from mnemo.documents import content_hash

NODE_TABLES = ("Note", "Chunk", "Entity", "Alias", "Day", "Episode")
STRUCTURAL_EDGES = (
    "HAS_CHUNK", "NEXT", "LINKS_TO", "MENTIONS", "PAGE_OF", "ON_DAY", "ALIAS_OF",
    "HAS_EPISODE", "IN_EPISODE", "SPOKE_IN", "SAID_BY", "MENTIONS_DAY",
)
EDGE_COLUMNS = (
    "id", "src", "dst", "doc_id", "role", "props", "span_start", "span_end", "surface", "method",
    "extractor", "prompt_version", "valid_from", "valid_to", "observed_at", "h",
)


def row_hash(row: dict[str, Any]) -> str:
    """A digest of every column except `h` itself, stable across runs."""
    return content_hash(json.dumps({k: v for k, v in row.items() if k != "h"}, sort_keys=True, default=str))


def edge(
    table: str, src: str, dst: str, doc_id: str, *, role: str = "", props: dict[str, Any] | None = None,
    start: int = -1, end: int = -1, surface: str = "", method: str = "", extractor: str = "structural",
    prompt_version: str = "", valid_from: str = "", valid_to: str = "", observed_at: str = "", key: str = "",
) -> dict[str, Any]:
    """One edge row with a content-addressed id (same inputs, same id)."""
    row = {
        "id": "rel_" + content_hash(table, src, dst, doc_id, role, str(start), key),
        "src": src, "dst": dst, "doc_id": doc_id, "role": role,
        "props": json.dumps(props or {}, sort_keys=True, ensure_ascii=False),
        "span_start": start, "span_end": end, "surface": surface, "method": method, "extractor": extractor,
        "prompt_version": prompt_version, "valid_from": valid_from, "valid_to": valid_to,
        "observed_at": observed_at,
    }
    row["h"] = row_hash(row)
    return row


@dataclass
class GraphFacts:
    """Node rows per node table and edge rows per (table, from-table, to-table)."""

    nodes: dict[str, dict[str, dict[str, Any]]] = field(default_factory=lambda: {t: {} for t in NODE_TABLES})
    edges: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = field(default_factory=dict)

    def add_node(self, table: str, row: dict[str, Any]) -> None:
        row = dict(row)
        row["h"] = row_hash(row)
        self.nodes[table][row["id"]] = row

    def add_edge(self, table: str, from_table: str, to_table: str, row: dict[str, Any]) -> None:
        self.edges.setdefault((table, from_table, to_table), {})[row["id"]] = row

    def count(self) -> dict[str, int]:
        counts = {table: len(rows) for table, rows in self.nodes.items()}
        for (table, _, _), rows in self.edges.items():
            counts[table] = counts.get(table, 0) + len(rows)
        return counts

    def relations(self) -> list[dict[str, Any]]:
        """Entity-to-entity relation rows, each with its `type` (the lower-case table name)."""
        return [
            {**row, "type": table.lower()}
            for (table, src, dst), rows in sorted(self.edges.items())
            if src == "Entity" and dst == "Entity"
            for row in rows.values()
        ]
