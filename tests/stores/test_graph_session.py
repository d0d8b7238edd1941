"""Units of work inside a graph session share one opening of the database, which stays locked
against other processes (and the namespace against a backup or compaction) until the block ends;
outside a session each unit opens its own."""

import subprocess
import sys
from pathlib import Path

import pytest

from mnemo.facts import GraphFacts
from mnemo.stores.graph import GraphStore
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
