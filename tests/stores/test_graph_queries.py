"""Several read queries in one opening of the graph give what one opening per query gives."""

import pytest

from tests.support import Workspace

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
