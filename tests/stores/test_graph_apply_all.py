"""`GraphStore.apply_all` writes the facts as `apply` does, and leaves the database unopened when
nothing wrote it since it got the same facts: an ingest with nothing new does not open the graph."""

from pathlib import Path

import pytest

from mnemo.facts import GraphFacts
from mnemo.stores.graph import GraphStore
from ontology import load_ontology
from tests.support import graph_engine, graph_openings

pytestmark = pytest.mark.graph


def _days(*days: str) -> GraphFacts:
    facts = GraphFacts()
    for day in days:
        facts.add_node("Day", {"id": day})
    return facts


def _days_held(store: GraphStore) -> list[str]:
    return sorted(row["id"] for row in store.query("MATCH (d:Day) RETURN d.id AS id"))


def _store(tmp_path: Path) -> GraphStore:
    return GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())


def test_the_same_facts_again_leave_the_graph_unopened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    assert store.apply_all(_days("2024-01-01", "2024-01-02")).writes == 2
    openings = graph_openings(monkeypatch)
    assert store.apply_all(_days("2024-01-01", "2024-01-02")).writes == 0
    assert openings == []
    assert _days_held(store) == ["2024-01-01", "2024-01-02"]


def test_changed_facts_are_written(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.apply_all(_days("2024-01-01", "2024-01-02"))
    stats = store.apply_all(_days("2024-01-01", "2024-01-03"))
    assert (stats.inserted["Day"], stats.deleted["Day"]) == (1, 1)
    assert _days_held(store) == ["2024-01-01", "2024-01-03"]


def test_a_graph_written_by_another_writer_is_made_equal_again(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.apply_all(_days("2024-01-01"))
    store.apply(_days("2024-02-02"))  # e.g. sleep mode's graph sync, or a second process
    assert store.apply_all(_days("2024-01-01")).writes == 2
    assert _days_held(store) == ["2024-01-01"]


def test_a_replaced_database_gets_the_facts_again(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.apply_all(_days("2024-01-01"))
    for path in tmp_path.glob("graph.kuzu*"):
        path.unlink()  # removed, as a restore or a rebuild replaces it
    assert store.apply_all(_days("2024-01-01")).writes == 1
    assert _days_held(store) == ["2024-01-01"]
