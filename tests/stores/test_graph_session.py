"""Units of work inside a graph session share one opening of the database, which stays locked
against other processes (and the namespace against a backup or compaction) until the block ends;
outside a session each unit opens its own; `apply_all` of facts the graph already got opens none, and
one of new facts counts the graph (for `mnemo status`) on the opening it wrote with."""

import subprocess
import sys
from pathlib import Path

import pytest

from mnemo.facts import GraphFacts
from mnemo.stores.graph import GraphStore
from mnemo.stores.kept import graph_counts
from ontology import load_ontology
from tests.support import REPO, graph_engine, graph_openings

pytestmark = pytest.mark.graph


def _days(*days: str) -> GraphFacts:
    facts = GraphFacts()
    for day in days:
        facts.add_node("Day", {"id": day})
    return facts


def _count_days(store: GraphStore) -> int:
    return int(store.query("MATCH (d:Day) RETURN count(d) AS n")[0]["n"])


def _opens_elsewhere(path: Path) -> bool:
    """Whether another process can open the database (read-only) right now."""
    probe = "import sys; from pathlib import Path; from mnemo.stores.graph_engine import open_database\n" \
            "open_database(sys.argv[2], Path(sys.argv[1]), True, 0).close()"
    done = subprocess.run([sys.executable, "-c", probe, str(path), graph_engine()], capture_output=True, cwd=REPO)
    return done.returncode == 0


def _locks_elsewhere(root: Path) -> bool:
    """Whether another process can take the namespace lock alone (as a backup or compaction does) right now."""
    probe = "import sys; from pathlib import Path; from mnemo.stores.locks import namespace_lock\n" \
            "with namespace_lock(Path(sys.argv[1]), exclusive=True, wait_seconds=0): pass"
    return subprocess.run([sys.executable, "-c", probe, str(root)], capture_output=True, cwd=REPO).returncode == 0


def test_units_of_work_in_a_session_share_one_opening_and_lock_until_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    openings = graph_openings(monkeypatch)
    with store.session():
        assert _locks_elsewhere(store.path.parent)  # nothing opened yet: nothing held
        store.apply(_days("2026-01-01"))
        assert not _locks_elsewhere(store.path.parent)  # held between units of work
        other = GraphStore(store.path, store.ontology, engine=store.engine)  # the same path: the same session
        assert _count_days(other) == 1
        store.apply(_days("2026-01-01", "2026-01-02"))
        assert _count_days(store) == 2
        assert openings == [False]
        assert not _opens_elsewhere(store.path)
    assert _opens_elsewhere(store.path) and _locks_elsewhere(store.path.parent)
    assert _count_days(store) == 2 and len(openings) == 2  # closed, written through; the count opened it again


def test_without_a_session_each_unit_of_work_opens_the_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    openings = graph_openings(monkeypatch)
    store.apply(_days("2026-01-01"))
    assert _count_days(store) == 1
    assert openings == [False, True]


def test_a_session_opened_for_reading_is_opened_again_for_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    store.apply(_days("2026-01-01"))
    openings = graph_openings(monkeypatch)
    with store.session():
        assert _count_days(store) == 1
        store.apply(_days("2026-01-01", "2026-01-02"))
        assert _count_days(store) == 2
        with store.session():  # nested: the outer block keeps it open
            assert _count_days(store) == 2
        assert openings == [True, False]
    assert _count_days(GraphStore(store.path, store.ontology, engine=store.engine)) == 2


def test_a_failed_unit_of_work_leaves_the_session_usable_and_closed_at_its_end(tmp_path: Path) -> None:
    store = GraphStore(tmp_path / "graph.kuzu", load_ontology(), engine=graph_engine())
    with pytest.raises(RuntimeError), store.session():
        store.apply(_days("2026-01-01"))
        with pytest.raises(RuntimeError):
            store.query("MATCH (d:NoSuchTable) RETURN d")
        assert _count_days(store) == 1
        raise RuntimeError("the block fails")
    assert _opens_elsewhere(store.path) and _locks_elsewhere(store.path.parent)


# `apply_all` writes the facts as `apply` does, and leaves the database unopened when nothing wrote it
# since it got the same facts: an ingest with nothing new does not open the graph.

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


def test_a_write_of_new_facts_keeps_the_graphs_counts_from_its_own_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = _store(tmp_path)
    openings = graph_openings(monkeypatch)
    store.apply_all(_days("2024-01-01", "2024-01-02"))
    assert openings == [False]  # the write's opening, and no other to count
    kept = graph_counts(store.path, lambda: {"counted afresh": 1})
    assert kept == store.counts() and kept["Day"] == 2
    store.apply_all(_days("2024-01-01"))
    assert graph_counts(store.path, lambda: {"counted afresh": 1}) == store.counts()
    assert store.counts()["Day"] == 1
