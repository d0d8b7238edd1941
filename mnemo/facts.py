"""GraphFacts: the desired content of a namespace's graph, as plain rows per table."""

import json
from collections.abc import Iterator, Mapping, MutableMapping
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


class ColumnRows(MutableMapping[str, dict[str, Any]]):
    """Rows of one edge table kept as the columns they were read in (a polars frame with an `id`
    column) until a caller reads or changes them as dicts; `columns` and `remap` work on the
    columns. A sleep run reads 77k MENTIONS and HAS_CHUNK rows at 10k notes only for their ends:
    made into dicts they took 0.07 s, as columns 0.01."""

    def __init__(self, frame: Any) -> None:
        self._frame: Any = frame
        self._rows: dict[str, dict[str, Any]] | None = None

    def _dicts(self) -> dict[str, dict[str, Any]]:
        if self._rows is None:
            self._rows = dict(zip(self._frame["id"].to_list(), self._frame.to_dicts()))
            self._frame = None
        return self._rows

    def __getitem__(self, key: str) -> dict[str, Any]:
        return self._dicts()[key]

    def __setitem__(self, key: str, row: dict[str, Any]) -> None:
        self._dicts()[key] = row

    def __delitem__(self, key: str) -> None:
        del self._dicts()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dicts())

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else self._frame.height

    def copy(self) -> "ColumnRows | dict[str, dict[str, Any]]":
        return ColumnRows(self._frame) if self._rows is None else dict(self._rows)

    def columns(self, *names: str) -> list[list[Any]]:
        """The named columns as lists, in row order."""
        if self._rows is not None:
            return [[row[name] for row in self._rows.values()] for name in names]
        return [self._frame[name].to_list() for name in names]

    def extend(self, rows: list[dict[str, Any]]) -> None:
        """Add rows (a row with an id already held replaces it in place, as a dict update would)."""
        if self._rows is not None or not rows:
            self._dicts().update((row["id"], row) for row in rows)
            return
        import polars as pl

        added = pl.DataFrame([{k: row.get(k) for k in self._frame.columns} for row in rows], schema=self._frame.schema)
        added = added.unique("id", keep="last", maintain_order=True)
        fresh = added.filter(~pl.col("id").is_in(self._frame["id"].implode()))
        self._frame = pl.concat([self._frame.update(added, on="id", include_nulls=True), fresh])

    def remap(self, src: Mapping[str, str], dst: Mapping[str, str]) -> None:
        """Rewrite the ends found in `src` / `dst`; a rewritten row gets its hash made again."""
        if self._rows is not None:
            for row in self._rows.values():
                _remapped(row, src, dst)
            return
        import polars as pl

        hit = pl.col("src").is_in(list(src)) | pl.col("dst").is_in(list(dst))
        changed = self._frame.filter(hit).to_dicts()
        if changed:
            for row in changed:
                _remapped(row, src, dst)
            self._frame = self._frame.update(
                pl.DataFrame(changed, schema=self._frame.schema), on="id", include_nulls=True
            )


EdgeRows = dict[str, dict[str, Any]] | ColumnRows  # the rows of one edge table


def _remapped(row: dict[str, Any], src: Mapping[str, str], dst: Mapping[str, str]) -> None:
    new = src.get(row["src"], row["src"]), dst.get(row["dst"], row["dst"])
    if new != (row["src"], row["dst"]):
        row["src"], row["dst"] = new
        row["h"] = row_hash(row)


def edge_columns(rows: Mapping[str, dict[str, Any]], *names: str) -> list[list[Any]]:
    """The named columns of edge rows, as lists in row order (without making dicts of `ColumnRows`)."""
    if isinstance(rows, ColumnRows):
        return rows.columns(*names)
    return [[row[name] for row in rows.values()] for name in names]


@dataclass
class GraphFacts:
    """Node rows per node table and edge rows per (table, from-table, to-table)."""

    nodes: dict[str, dict[str, dict[str, Any]]] = field(default_factory=lambda: {t: {} for t in NODE_TABLES})
    edges: dict[tuple[str, str, str], EdgeRows] = field(default_factory=dict)

    def add_node(self, table: str, row: dict[str, Any]) -> None:
        row = dict(row)
        row["h"] = row_hash(row)
        self.nodes[table][row["id"]] = row

    def add_edge(self, table: str, from_table: str, to_table: str, row: dict[str, Any]) -> None:
        self.edges.setdefault((table, from_table, to_table), {})[row["id"]] = row

    def digest(self) -> str:
        """One digest of every row's table, id and content hash: equal digests, equal graphs."""
        parts = [f"{table}|{i}|{row['h']}" for table, rows in self.nodes.items() for i, row in rows.items()]
        parts += [f"{'|'.join(key)}|{i}|{row['h']}" for key, rows in self.edges.items() for i, row in rows.items()]
        return content_hash("\n".join(sorted(parts)))

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
