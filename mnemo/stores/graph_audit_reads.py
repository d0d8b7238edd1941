"""Questions that audit or copy the whole graph: integrity counts, relation endpoint kinds, and
every row of a table (for an export)."""

from typing import Any

from mnemo.stores.cypher import Reads
from mnemo.stores.graph_schema import EDGE_PROPS

DANGLING = {
    "chunks without a note": "MATCH (c:Chunk) WHERE NOT EXISTS { MATCH (:Note)-[:HAS_CHUNK]->(c) } RETURN count(c)",
    "aliases without an entity": (
        "MATCH (a:Alias) WHERE NOT EXISTS { MATCH (a)-[:ALIAS_OF]->(:Entity) } RETURN count(a)"
    ),
    "missing notes nobody links to": (
        "MATCH (n:Note) WHERE n.present = false AND NOT EXISTS { MATCH (:Note)-[:LINKS_TO]->(n) } RETURN count(n)"
    ),
    "entities with no provenance": (
        "MATCH (e:Entity) WHERE NOT EXISTS { MATCH ()-[]->(e) } AND NOT EXISTS { MATCH (e)-[]->() } RETURN count(e)"
    ),
}


class AuditReads(Reads):
    def dangling(self) -> dict[str, int]:
        """Counts of graph elements that lost what should hold them, by what they lost."""
        return {name: int(next(iter(self._dicts(cypher)[0].values()))) for name, cypher in DANGLING.items()}

    def counts(self, node_tables: list[str], edge_keys: list[tuple[str, str, str]]) -> dict[str, int]:
        """Rows per node table, and per edge table over all of its (from, to) pairs."""
        counts = {t: self._count(f"MATCH (n:{t}) RETURN count(n)") for t in node_tables}
        for table, a, b in edge_keys:
            counts[table] = counts.get(table, 0) + self._count(f"MATCH (:{a})-[r:{table}]->(:{b}) RETURN count(r)")
        return counts

    def dump(self, node_schemas: dict[str, dict[str, str]], edge_keys: list[tuple[str, str, str]],
             ) -> dict[str, list[tuple[Any, ...]]]:
        """Every node and edge (without run ids), sorted: a node table's rows by table name, an
        edge table's by `table:from->to`."""
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table, columns in node_schemas.items():
            cols = ", ".join(f"n.{c}" for c in columns)
            out[table] = sorted(map(tuple, self._rows(f"MATCH (n:{table}) RETURN {cols}")), key=repr)
        for table, a, b in edge_keys:
            cols = ", ".join(f"r.{c}" for c in EDGE_PROPS if c != "run_id")
            rows = self._rows(f"MATCH (x:{a})-[r:{table}]->(y:{b}) RETURN x.id, y.id, {cols}")
            out[f"{table}:{a}->{b}"] = sorted(map(tuple, rows), key=repr)
        return out

    def _count(self, cypher: str) -> int:
        return int(self._rows(cypher)[0][0])

    def relation_end_kinds(self, table: str) -> list[dict[str, Any]]:
        """(a, b, n): how many relations of the edge table join an entity of kind a to one of kind b."""
        return self._dicts(f"MATCH (a:Entity)-[r:{table}]->(b:Entity) RETURN a.kind AS a, b.kind AS b, count(*) AS n")

    def node_rows(self, table: str, columns: list[str]) -> list[dict[str, Any]]:
        """Every node of the table, with the columns."""
        return self._dicts(f"MATCH (n:{table}) RETURN " + ", ".join(f"n.{c} AS {c}" for c in columns))

    def edge_rows(self, table: str, src: str, dst: str, props: list[str]) -> list[dict[str, Any]]:
        """Every edge of the table from a `src` node to a `dst` node: its ends' ids and the props."""
        columns = ", ".join(f"r.{c} AS {c}" for c in props)
        return self._dicts(f"MATCH (x:{src})-[r:{table}]->(y:{dst}) RETURN x.id AS src, y.id AS dst, {columns}")
