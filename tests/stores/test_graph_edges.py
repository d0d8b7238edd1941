"""A table's few new edges are written one statement each (each finds its two ends by key), the
statement planned once for the table: planning it again for every edge had doubled the cost of
each (1.9 ms against 1.0 ms in one measurement on a busy 2-core host), and such edges are most of a
small namespace's graph write."""

from pathlib import Path

import pytest

from mnemo.facts import GraphFacts, edge
from mnemo.stores.graph import FEW_EDGES, GraphStore
from mnemo.stores.graph_engine import Connection, engine_module
from ontology import load_ontology
from tests.support import graph_engine

pytestmark = pytest.mark.graph


def _days_in_a_row(n: int) -> GraphFacts:
    facts = GraphFacts()
    days = [f"2026-01-{d:02d}" for d in range(1, n + 2)]
    for day in days:
        facts.add_node("Day", {"id": day})
    for before, after in zip(days, days[1:]):
        facts.add_edge("NEXT", "Day", "Day", edge("NEXT", before, after, "", start=int(after[-2:])))
    return facts


def test_a_tables_few_edges_share_one_planned_statement(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planned_each_time: list[str] = []
    connection = engine_module(graph_engine()).Connection
    execute = connection.execute

    def counted(self: Connection, query: object, parameters: dict[str, object] | None = None) -> object:
        if isinstance(query, str) and parameters:  # a query string with parameters is planned on every call
            planned_each_time.append(query)
        return execute(self, query, parameters)  # type: ignore[arg-type]
    monkeypatch.setattr(connection, "execute", counted)
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    edges = FEW_EDGES // 2
    store.apply(_days_in_a_row(edges), run_id="run-1")
    assert not [q for q in planned_each_time if "CREATE (a)-[" in q]
    rows = store.query("MATCH (a:Day)-[r:NEXT]->(b:Day) RETURN a.id AS a, b.id AS b, r.span_start AS s, r.run_id AS run")
    assert len(rows) == edges
    assert {(r["a"], r["b"], r["s"], r["run"]) for r in rows} == \
        {(f"2026-01-{d:02d}", f"2026-01-{d + 1:02d}", d + 1, "run-1") for d in range(1, edges + 1)}
