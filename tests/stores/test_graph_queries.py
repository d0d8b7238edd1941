"""Several read queries in one opening of the graph give what one opening per query gives."""

from pathlib import Path

import pytest

from mnemo.facts import GraphFacts
from mnemo.stores.graph import GraphStore
from ontology import load_ontology
from tests.support import Workspace, graph_engine

pytestmark = pytest.mark.graph


def test_queries_in_one_opening_equal_single_queries(workspace: Workspace) -> None:
    workspace.ingest()
    graph = workspace.graph()
    cyphers = [
        "MATCH (e:Entity) RETURN e.kind AS kind, count(*) AS n ORDER BY kind",
        "MATCH (n:Note)-[:LINKS_TO]->(m:Note) RETURN n.title AS a, m.title AS b ORDER BY a, b LIMIT 20",
        "MATCH (c:Chunk) RETURN count(c) AS chunks",
    ]
    together = graph.queries(cyphers)
    assert together == [graph.query(c) for c in cyphers]
    assert together[0] and together[2][0]["chunks"] > 0


def test_a_source_name_with_a_quote_is_a_parameter_not_cypher(tmp_path: Path) -> None:
    facts = GraphFacts()
    for note, source in (("note_a", "Bob's notes"), ("note_b", "memories")):
        facts.add_node("Note", {"id": note, "path": f"{note}.md", "title": note, "kind": "note", "source": source,
                                "tags": [], "properties": "{}", "day": "", "created": "", "content_hash": "",
                                "present": True})
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    store.apply(facts, run_id="run-1")
    with store.reading() as graph:
        assert graph.notes_of_source("Bob's notes") == [("note_a",)]
        assert graph.notes_of_source("memories") == [("note_b",)]
