"""The in-memory graph view recall hydrates from, and the rows recall holds per table version:
same answers as the stores themselves, refreshed when they change, and never in a writer's way."""

import random
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

from mnemo.client import MemoryClient
from mnemo.recall.engine import RecallEngine
from mnemo.recall.graph import Hydration, hydrate_from_graph
from mnemo.recall.graph_view import current_view
from mnemo.recall.search import HeldChunks, NameIndex, TimeWindow, lexical, names_in, semantic
from mnemo.recall.settings import RecallSettings
from mnemo.stores.session import NamespaceSession
from tests.support import Workspace

QUERIES = ["Who is Alice Chen?", "What does Alice Chen work on?", "Project Heron launch", "dinner with Dana Kim",
           "Sam Rivera", "offsite planning notes", "Berlin"]

QUINN = "---\ntype: person\nknows: [\"[[Alice Chen]]\"]\n---\n# Quinn Avery\n\nQuinn Avery met [[Alice Chen]] about [[Project Heron]].\n"


def _answers(engine: RecallEngine, mode: str) -> list[dict]:
    out = []
    for query in QUERIES:
        result = engine.recall(query, k=10, mode=mode)
        out.append({"items": [(i.id, i.kind, i.score, i.reasons) for i in result.items], "grounding": result.grounding,
                    "text": result.text, "degraded": result.degraded})
    return out


def _from_database(engine: RecallEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `engine` hydrate straight from the database and search LanceDB, as recall did before the view."""
    def direct(entities, hits, hops, as_of, hidden_docs=frozenset()):  # noqa: ANN001, ANN202 - the method's own signature
        if not (entities or hits):
            return None, Hydration()
        return None, hydrate_from_graph(engine.graph, entities, hits, hops, as_of, engine.settings.graph_wait)

    monkeypatch.setattr(engine, "_hydrate", direct)
    monkeypatch.setattr(engine.reads, "held", lambda table: None)


def _hold_graph(path: Path) -> subprocess.Popen:
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import kuzu, time; db = kuzu.Database({str(path)!r}); print('held', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


@pytest.fixture
def ingested(workspace: Workspace) -> Workspace:
    workspace.ingest()
    return workspace


def test_recall_from_the_view_equals_recall_from_the_stores(ingested: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """Everything but exact vector search (tested below: it can break ties differently)."""
    client = MemoryClient("test", config=ingested.config_path, settings=RecallSettings(exact_vectors=False))
    fast = {mode: _answers(client.engine, mode) for mode in ("eager", "deliberate")}
    held = client.engine.reads.held_rows
    assert held is not None and held[1] is not None  # the small table is held
    direct = MemoryClient("test", config=ingested.config_path)
    _from_database(direct.engine, monkeypatch)
    assert {mode: _answers(direct.engine, mode) for mode in ("eager", "deliberate")} == fast
    assert any(a["grounding"] for a in fast["eager"]) and any(
        i[1] == "relation" for a in fast["deliberate"] for i in a["items"])


def test_view_hydration_equals_the_database_for_every_entity(ingested: Workspace) -> None:
    graph = ingested.graph()
    view = current_view(graph, 1.0, NamespaceSession(ingested.files().root))
    chunks = sorted(view.chunk_mentions)
    for n, entity in enumerate(sorted(view.entities)):
        for hops, as_of, limit in ((1, None, 200), (2, "2026-10-01", 200), (2, None, 3)):
            hits = chunks[n % len(chunks):][:20]
            expected = hydrate_from_graph(graph, [entity], hits, hops, as_of, 1.0, limit)
            assert asdict(view.hydrate([entity], hits, hops, as_of, limit)) == asdict(expected), (entity, hops, as_of, limit)


def test_the_view_refreshes_after_a_reingest_changes_the_graph(ingested: Workspace, vault: Path) -> None:
    graph, session = ingested.graph(), NamespaceSession(ingested.files().root)
    before = current_view(graph, 1.0, session)
    assert current_view(graph, 1.0, session) is before  # unchanged files: the same view, no database opened
    note = vault / "People" / "Quinn Avery.md"
    note.write_text(QUINN, encoding="utf-8")
    ingested.ingest()
    after = current_view(graph, 1.0, session)
    assert after is not before and "person_quinn_avery" in after.entities
    hit = [c for c in after.chunk_mentions if c not in before.chunk_mentions]
    assert hit and any(r.other == "person_alice_chen" for r in after.adjacent["person_quinn_avery"])
    expected = hydrate_from_graph(graph, ["person_quinn_avery", "person_alice_chen"], hit, 2, None, 1.0)
    assert asdict(after.hydrate(["person_quinn_avery", "person_alice_chen"], hit, 2, None)) == asdict(expected)
    assert any(i.id in hit for i in MemoryClient("test", config=ingested.config_path).recall("Quinn Avery").items)


def test_a_locked_graph_serves_the_last_view_and_degrades_without_one(ingested: Workspace, vault: Path) -> None:
    wait = 20.0  # a recall that waited for the lock would take this long: far more than any busy machine adds
    client = MemoryClient("test", config=ingested.config_path, settings=RecallSettings(graph_wait=wait))
    seen = client.recall("Who is Alice Chen?")
    (vault / "People" / "Quinn Avery.md").write_text(QUINN, encoding="utf-8")
    ingested.ingest()  # the files changed: the next recall would reload the view
    holder = _hold_graph(ingested.files().graph_path)
    try:
        started = time.monotonic()
        stale = client.recall("Who is Alice Chen?")
        assert time.monotonic() - started < wait / 2  # no wait for the lock while a view exists
        assert stale.degraded is None and stale.grounding == seen.grounding
        cold = MemoryClient("test", config=ingested.config_path, settings=RecallSettings(graph_wait=0.5))
        degraded = cold.recall("Who is Alice Chen?")  # no view yet: it waits half a second, then degrades
        assert degraded.degraded and "locked" in degraded.degraded and len(degraded.grounding) < len(seen.grounding)
    finally:
        holder.kill()
        holder.wait()
    fresh = client.recall("Who is Alice Chen?")
    assert fresh.degraded is None and fresh.grounding


def test_recall_leaves_the_graph_free_for_a_writer(ingested: Workspace) -> None:
    client = MemoryClient("test", config=ingested.config_path)
    assert client.recall("Who is Alice Chen?").grounding
    holder = _hold_graph(ingested.files().graph_path)  # a read-write open succeeds at once
    holder.kill()
    holder.wait()


def test_held_chunks_search_exactly_and_only_small_tables(ingested: Workspace) -> None:
    client = MemoryClient("test", config=ingested.config_path)
    raw, table = client.vectors.table("chunks"), client.vectors.must_open("chunks")
    held = HeldChunks(table)
    vector = client.embedder.encode(["Alice Chen and Project Heron"])[0]
    exact = raw.search(vector.tolist(), query_type="vector").metric("cosine").limit(10).to_list()
    found = held.nearest(vector, 10, TimeWindow())
    cosine = held.vectors[[held.offset[i] for i in found]] @ vector / (held.norms[[held.offset[i] for i in found]] * np.linalg.norm(vector))
    assert np.allclose(cosine, [1.0 - r["_distance"] for r in exact], atol=1e-6)  # the same ranks, up to ties
    row, want = held.full_rows(found[:3])[0], exact[[r["id"] for r in exact].index(found[0])]
    assert set(row) == set(held.data.column_names) and {k: v for k, v in row.items() if k != "vector"} == {
        k: v for k, v in want.items() if k in held.data.column_names and k != "vector"}
    assert row["vector"].dtype == np.float32 and row["vector"].tolist() == np.asarray(want["vector"], dtype=np.float32).tolist()
    window = TimeWindow(since="2026-10-01")  # bounds dated passages; undated ones pass
    assert all(held.timestamps[held.offset[i]] in ("", *[t for t in held.timestamps if t >= "2026-10-01"])
               for i in held.nearest(vector, 10, window))
    dated = TimeWindow(since="2026-10-01", dated_only=True)
    assert all(held.timestamps[held.offset[i]] >= "2026-10-01" for i in held.nearest(vector, 10, dated))
    assert held.nearest(vector, 10, TimeWindow(since="9999", dated_only=True)) == [] and held.full_rows([]) == []
    assert held.nbytes > 0
    small = MemoryClient("test", config=ingested.config_path, settings=RecallSettings(hold_rows=table.count() - 1))
    small.recall("Alice Chen")
    assert small.engine.reads.held_rows is not None and small.engine.reads.held_rows[1] is None


def test_full_text_hits_with_held_rows_equal_the_tables_own(ingested: Workspace) -> None:
    client = MemoryClient("test", config=ingested.config_path)
    table = client.vectors.must_open("chunks")
    held = HeldChunks(table)
    windows = [TimeWindow(), TimeWindow(since="2026-10-01"), TimeWindow(until="2026-09-30")]
    compared = 0
    for query, window in [(q, w) for q in QUERIES for w in windows]:
        own, from_memory = lexical(table, query, 20, window), lexical(table, query, 20, window, held)
        assert all(isinstance(r.pop("_rowid"), int) for r in own)  # the table's rows carry their address (rows_near)
        assert [list(r) for r in from_memory] == [list(r) for r in own], query  # the same columns, in order
        assert [{k: v for k, v in r.items() if k != "vector"} for r in from_memory] == \
            [{k: v for k, v in r.items() if k != "vector"} for r in own], query
        assert all(a["vector"].tolist() == b["vector"].tolist() for a, b in zip(from_memory, own))
        compared += len(own)
    assert compared > 20 and lexical(table, "?!", 20, TimeWindow(), held) == []


def test_recall_ranks_alike_over_a_held_table_and_one_too_large_to_hold(ingested: Workspace) -> None:
    """Held rows (a small table) and LanceDB queries (a large one: the hits' rows and the turns
    around them fetched by id) give the same ranking wherever both searches find the same hits."""
    # few candidates, so that most turns around them are not candidates themselves
    holding, unheld = (MemoryClient("test", config=ingested.config_path, settings=RecallSettings(pool=8, hold_rows=n)) for n in (10**6, 0))
    table = holding.vectors.must_open("chunks")
    held, same = HeldChunks(table), 0
    long_queries = ["What did Alice Chen and Dana Kim decide about the Project Heron launch and the budget?",
                    "Which team members worked on the robotics demo in Lisbon last month, and what went wrong?",
                    "Notes from the weekly planning meeting about hiring, deadlines and the next release"]
    for query in QUERIES + long_queries:  # searched exactly, held or not, but chunks at equal cosine may rank apart
        vector = holding.embedder.encode([query])[0]
        if [r["id"] for r in semantic(table, vector, 8, TimeWindow(), held)] != [r["id"] for r in semantic(table, vector, 8, TimeWindow())]:
            continue
        want, got = holding.recall(query).items, unheld.recall(query).items
        assert got and [(i.id, i.score, i.reasons) for i in got] == [(i.id, i.score, i.reasons) for i in want], query
        same += 1
    assert same >= 4 and unheld.engine.reads.held_rows is not None and unheld.engine.reads.held_rows[1] is None


def test_the_name_index_finds_what_names_in_finds() -> None:
    rng = random.Random(7)
    words = ["alice", "chen", "project", "heron", "dana", "kim", "lisbon", "acme", "robotics", "a", "sam"]
    names = [(f"e{n}", "person", " ".join(rng.choices(words, k=rng.randint(1, 3)))) for n in range(60)]
    names = [n for n in names if len(n[2]) >= 3]
    index = NameIndex(names)
    for _ in range(300):
        query = " ".join(rng.choices(words + ["—", "Alice-Chen", "HERON!", "about"], k=rng.randint(0, 8)))
        assert index.find(query) == names_in(query, names), query


def test_the_search_step_alone_ranks_a_chunks_own_text_first_held_or_not(ingested: Workspace) -> None:
    holding, unheld = (MemoryClient("test", config=ingested.config_path, settings=RecallSettings(hold_rows=n)) for n in (10**6, 0))
    rows = holding.vectors.table("chunks").search().select(["id", "embed_text"]).limit(None).to_list()
    picked = [r for r in rows if len(r["embed_text"].split()) > 12][:5]
    assert picked
    for row in picked:
        for client in (holding, unheld):
            found = client.engine.search(row["embed_text"], k=5)
            assert found[0] == row["id"] and len(found) == 5 and len(set(found)) == 5
    assert holding.engine.reads.held_rows[1] is not None and unheld.engine.reads.held_rows[1] is None
    with pytest.raises(ValueError, match="empty"):
        holding.engine.search("  ")
