"""Re-running sleep mode does work in proportion to what changed: overlays reused row by row,
Leiden and PageRank skipped while the entity graph is the same, salience rows left alone while
only time moved them a little, and a sync of sleep mode's own tables that still leaves the whole
graph canonical."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mnemo.config import SleepConfig
from mnemo.facts import edge
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import sync_graph, sync_sleep_tables
from mnemo.sleep.salience import SCORE_EPSILON, read_salience, retention_at
from mnemo.sleep.store import Overlay, SleepFiles, read_json, write_json
from tests.support import Workspace

T0 = datetime(2026, 11, 21, 3, tzinfo=UTC)


def test_rerun_work_follows_what_changed(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    files, graph, settings = workspace.files(), workspace.graph(), SleepConfig()
    first = consolidate(files, graph, settings, T0)
    assert first.graph_writes > 0 and first.communities.summarized > 0
    stored = read_salience(files.root)
    state = SleepFiles(files.root).read_state("communities")

    night = consolidate(files, graph, settings, T0 + timedelta(days=1))
    after = read_salience(files.root)
    rewritten = [i for i in after if after[i] != stored[i]]
    assert night.graph_writes == len(rewritten)  # nothing but salience rows that moved is written
    assert night.communities.summarized == 0 and night.summaries.made == 0
    assert SleepFiles(files.root).read_state("communities") == state  # Leiden's result reused
    for item, row in after.items():
        if item not in rewritten:
            assert abs(row["retention"] - retention_at(row, T0 + timedelta(days=1))) < SCORE_EPSILON
    assert sync_graph(files, graph).writes == 0  # the graph is what a full sync would make it

    note = vault / "Daily" / "2026-11-08.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nA long walk by the river.\n", encoding="utf-8")
    workspace.ingest()
    changed = consolidate(files, graph, settings, T0 + timedelta(days=1, hours=1))
    assert changed.summaries.made >= 1 and changed.summaries.made <= 3  # the day, and its week/month if closed
    assert SleepFiles(files.root).read_state("communities") == state  # same entity graph: Leiden not re-run
    assert changed.communities.summarized < first.communities.summarized
    assert sync_graph(files, graph).writes == 0


def test_overlay_files_keep_every_row_and_read_the_old_layout(tmp_path: Path) -> None:
    overlay = Overlay()
    overlay.add_node("Summary", {"id": "s1", "text": "A day."})
    overlay.link("CITES", "Summary", "Chunk", "s1", "chunk_a")
    overlay.link("CITES", "Summary", "Chunk", "s1", "chunk_b")
    concept = edge("INSTANCE_OF", "entity_a", "concept_b", "", extractor="llm", props={"why": "named so"})
    overlay.add_edge("INSTANCE_OF", "Entity", "Entity", concept)
    data = json.loads(json.dumps(overlay.to_json()))
    assert [k for k, _ in data["links"]] == [["CITES", "Summary", "Chunk"]]  # made by `link`: ids, ends, hashes only
    assert [k for k, _ in data["edges"]] == [["INSTANCE_OF", "Entity", "Entity"]]
    again = Overlay.from_json(data)
    assert again.nodes == overlay.nodes and again.edges == overlay.edges
    assert again.edges[("CITES", "Summary", "Chunk")][edge("CITES", "s1", "chunk_b", "", extractor="sleep")["id"]] == \
        edge("CITES", "s1", "chunk_b", "", extractor="sleep")
    old_layout = {"nodes": data["nodes"], "edges": [[list(k), list(rows.values())] for k, rows in overlay.edges.items()]}
    assert Overlay.from_json(json.loads(json.dumps(old_layout))).edges == overlay.edges
    assert Overlay.from_json(old_layout).digest() == again.digest() == overlay.digest()


def test_sleep_files_written_by_earlier_versions_still_read(tmp_path: Path) -> None:
    """Older versions wrote the sleep files with the standard library, which writes NaN where JSON has
    no number; such a file still reads, and a corrupt one still fails as before."""
    older = tmp_path / "state.json"
    older.write_text(json.dumps({"ranks": {"a": float("nan"), "b": 0.5}}, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    ranks = read_json(older, {})["ranks"]
    assert ranks["b"] == 0.5 and ranks["a"] != ranks["a"]  # NaN
    torn = tmp_path / "torn.json"
    torn.write_text('{"ranks": {"a": 0.', encoding="utf-8")
    with pytest.raises(json.JSONDecodeError):
        read_json(torn, {})


def test_the_sync_takes_the_digests_it_recorded_for_the_files_it_synced(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch,
) -> None:
    workspace.ingest()
    files, graph = workspace.files(), workspace.graph()
    consolidate(files, graph, SleepConfig(), T0)
    recorded = SleepFiles(files.root).read_state("sync")
    assert set(recorded["files"]) == set(SleepFiles.STEPS)

    computed: list[int] = []
    digest = Overlay.digest
    monkeypatch.setattr(Overlay, "digest", lambda self: computed.append(1) or digest(self))
    assert sync_sleep_tables(files, graph).writes == 0
    assert computed == []  # every overlay file is the one the last sync recorded: no digest made again

    salience = SleepFiles(files.root).read_overlay("salience").to_json()
    salience["nodes"]["Salience"][0]["score"] = 0.0
    salience["nodes"]["Salience"][0]["h"] = "written-elsewhere"
    write_json(SleepFiles(files.root).root / "overlay" / "salience.json", salience)  # not through write_overlay
    assert sync_sleep_tables(files, graph).writes == 1  # a file the sync did not record is digested and compared
    assert computed == [1]


def test_links_made_again_equal_links_made_from_nothing() -> None:
    """`link_all` over last run's overlay takes its rows when the ends are the same and looks each end
    up otherwise: either way the rows (and which keys count as linked) are those a fresh overlay makes."""
    import random

    rng = random.Random(5)
    pool = [(f"s{i}", f"c{j}") for i in range(6) for j in range(5)]
    previous = Overlay()
    reused = 0
    for _ in range(300):
        ends = rng.sample(pool, rng.randint(0, 8))
        if ends and rng.random() < 0.3:
            ends.append(ends[0])  # a repeated end
        old_ends = sorted({(r["src"], r["dst"]) for r in previous.edges.get(("CITES", "Summary", "Chunk"), {}).values()})
        if rng.random() < 0.4 and old_ends:
            ends = list(reversed(old_ends))  # the same ends as last run, in another order
        extra = rng.random() < 0.2
        overlay, fresh = Overlay(previous), Overlay()
        for made in (overlay, fresh):
            made.link_all("CITES", "Summary", "Chunk", ends)
            if extra:
                made.link("CITES", "Summary", "Chunk", "s9", "c9")  # a second call for the same key
        assert overlay.edges == fresh.edges and overlay.linked == fresh.linked
        assert overlay.digest() == fresh.digest()
        reused += bool(ends) and sorted(set(ends)) == old_ends
        previous = Overlay.from_json(json.loads(json.dumps(overlay.to_json())))
    assert reused > 50



def test_the_facts_a_consolidation_read_are_freed_before_collections_resume(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The facts are read and used with collections paused; they are dropped (freed by reference
    counts) before collections resume, so the first collection after the pause does not walk them."""
    import gc
    import weakref

    import mnemo.runtime
    import mnemo.sleep.consolidate as consolidation

    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), T0)  # the first run imports igraph, whose import keeps frames
    read, held, alive_at_resume = consolidation.sleep_facts, [], []

    def reading(files):  # noqa: ANN001, ANN202
        facts = read(files)
        held.append(weakref.ref(facts))
        return facts

    class Collector:  # the gc module, noting whether the facts are still alive when collections resume
        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(gc, name)

        def enable(self) -> None:
            alive_at_resume.append(any(ref() is not None for ref in held))
            gc.enable()

    monkeypatch.setattr(consolidation, "sleep_facts", reading)
    monkeypatch.setattr(mnemo.runtime, "gc", Collector())
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), T0 + timedelta(days=1))
    assert held and alive_at_resume == [False]
