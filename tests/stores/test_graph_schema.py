"""The graph's schema is created on first write, and a graph an older version made gets what it lacks;
rows of one table are written together in any column order."""

from pathlib import Path

import pytest

from mnemo.facts import GraphFacts
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_engine import engine_module
from mnemo.stores.graph_schema import EDGE_PROPS, EDGE_TYPES, NODE_SCHEMAS
from ontology import load_ontology
from tests.support import graph_engine

pytestmark = pytest.mark.graph


def _catalog(store: GraphStore) -> tuple[set[str], dict[str, set[tuple[str, str]]]]:
    with store.connect() as conn:
        result = conn.execute("CALL show_tables() RETURN name")
        tables = set()
        while result.has_next():
            tables.add(result.get_next()[0])
        pairs: dict[str, set[tuple[str, str]]] = {}
        for table in store.edge_tables:
            found = conn.execute(f"CALL show_connection('{table}') RETURN *")
            pairs[table] = set()
            while found.has_next():
                pairs[table].add(tuple(found.get_next()[:2]))
    return tables, pairs


def test_a_new_graph_gets_every_table_and_pair(tmp_path: Path) -> None:
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    tables, pairs = _catalog(store)
    assert tables == set(NODE_SCHEMAS) | set(store.edge_tables)
    assert pairs == {table: set(ends) for table, ends in store.edge_tables.items()}


def test_an_older_graph_gets_the_tables_and_pairs_it_lacks(tmp_path: Path) -> None:
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    multi = next(t for t, ends in store.edge_tables.items() if len(ends) > 1)
    dropped = next(t for t, ends in store.edge_tables.items() if len(ends) == 1 and t != multi)
    first = store.edge_tables[multi][0]
    engine = engine_module(store.engine)
    db = engine.Database(str(store.path))
    conn = engine.Connection(db)
    for table, columns in NODE_SCHEMAS.items():
        cols = ", ".join(f"{name} {kind}" for name, kind in columns.items())
        conn.execute(f"CREATE NODE TABLE {table}({cols}, PRIMARY KEY (id))")
    props = ", ".join(f"{name} {EDGE_TYPES.get(name, 'STRING')}" for name in EDGE_PROPS)
    for table, ends in store.edge_tables.items():
        if table == dropped:
            continue  # a relation type the older version did not have
        kept = [first] if table == multi else ends  # a table made before its other pairs were added
        conn.execute(f"CREATE REL TABLE {table}({', '.join(f'FROM {a} TO {b}' for a, b in kept)}, {props})")
    conn.execute(f"CREATE (:{first[0]} {{id: 'a'}})")
    conn.close()
    db.close()

    tables, pairs = _catalog(store)

    assert dropped in tables
    assert pairs[multi] == set(store.edge_tables[multi])
    assert pairs == {table: set(ends) for table, ends in store.edge_tables.items()}
    with store.connect(read_only=True) as conn:
        assert conn.execute(f"MATCH (n:{first[0]}) RETURN n.id").get_next() == ["a"]  # nothing held was lost


def _communities(summary: str, sorted_keys: bool = False) -> GraphFacts:
    """Two Community rows; with `sorted_keys` the second has its keys sorted (as read back from a file)."""
    made = GraphFacts()
    made.nodes["Community"] = {}
    for n in range(2):
        row = {"id": f"c{n}", "level": 0, "title": "T", "summary": f"{summary} {n}", "key_entities": [],
               "members": "[]", "member_count": 0, "sources": [], "digest": summary}
        made.add_node("Community", dict(sorted(row.items())) if sorted_keys and n else row)
    return made


def _summaries(store: GraphStore) -> list[str]:
    with store.connect(read_only=True) as conn:
        found = conn.execute("MATCH (n:Community) RETURN n.summary ORDER BY n.id")
        return [found.get_next()[0] for _ in range(found.get_num_tuples())]


def test_changed_rows_in_any_column_order_are_written_together(tmp_path: Path) -> None:
    """A sleep overlay mixes rows read back from its file (keys sorted) with rows made in the run."""
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    store.apply(_communities("first"))
    stats = store.apply(_communities("second", sorted_keys=True))
    assert stats.updated["Community"] == 2
    assert _summaries(store) == ["second 0", "second 1"]


def test_a_graph_cut_off_before_its_schema_was_complete_degrades_readers_until_the_next_write(tmp_path: Path) -> None:
    """A first write killed between creating the database and creating its last table leaves a graph
    without some tables: a read of one of them raises `GraphIncomplete` (a `StoreLocked`, so recall
    degrades to vectors and full-text) instead of an engine error, reads of the tables it has still
    answer, and the next writer completes the schema."""
    from mnemo.errors import GraphIncomplete, StoreLocked
    from mnemo.recall.graph_view import INCOMPLETE, hydrate
    from mnemo.stores.session import NamespaceSession

    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    made, lacking = list(NODE_SCHEMAS)[:3], list(NODE_SCHEMAS)[-1]
    engine = engine_module(store.engine)
    db = engine.Database(str(store.path))
    conn = engine.Connection(db)
    for table in made:  # cut off after three tables
        cols = ", ".join(f"{name} {kind}" for name, kind in NODE_SCHEMAS[table].items())
        conn.execute(f"CREATE NODE TABLE {table}({cols}, PRIMARY KEY (id))")
    conn.close()
    db.close()

    with pytest.raises(GraphIncomplete, match=f"no table {lacking}") as raised:
        store.query(f"MATCH (n:{lacking}) RETURN count(n) AS n", wait_seconds=0)
    assert isinstance(raised.value, StoreLocked)
    assert store.query(f"MATCH (n:{made[0]}) RETURN count(n) AS n") == [{"n": 0}]
    with pytest.raises(RuntimeError, match="Parser exception"):  # other errors are not taken for a missing table
        store.query("MATCH (n:", wait_seconds=0)
    degraded, hydration = hydrate(store, NamespaceSession(tmp_path), ["person_a"], ["chunk_a"], 1, None, 0.0)
    assert degraded == INCOMPLETE and not hydration.relations

    with store.connect():  # a writer: the schema made complete
        pass
    assert store.query(f"MATCH (n:{lacking}) RETURN count(n) AS n") == [{"n": 0}]
