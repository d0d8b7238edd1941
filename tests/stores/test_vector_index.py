"""The ANN index of a vector table: built once the table passes the configured size, used by
recall, kept current by incremental syncs; below the size search stays exact."""

import random

import pytest

from mnemo.config import EmbedderConfig, VectorIndexConfig, parse_config
from mnemo.recall.hybrid import recall_chunks
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import build_embedder
from mnemo.stores.vector_index import tune_search, vector_index_state
from mnemo.stores.vectors import VectorStore

WORDS = ("river garden budget design lantern heron compass signal meadow harvest engine bridge kestrel orchard "
         "quill ember atlas juniper harbor keystone lumen tidepool acme northwind review sprint launch").split()


def _rows(count: int, seed: int, prefix: str) -> list[dict[str, str]]:
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        text = f"{prefix} {i} " + " ".join(rng.choices(WORDS, k=12))
        rows.append({"id": f"chunk_{prefix}_{i:04d}", "path": f"Notes/{prefix}{i}.md", "title": "", "heading": "",
                     "text": text, "embed_text": text, "timestamp": ""})
    return rows


def nearest(store, embedder, text):
    """The vector half of recall alone (no full-text), and whether its plan went through the ANN index."""
    search = tune_search(store.table("chunks").search(embedder.encode([text])[0].tolist()).metric("cosine").limit(3))
    return search.to_list()[0]["id"], "ANNSubIndex" in search.explain_plan()


@pytest.fixture
def embedder():
    return build_embedder(EmbedderConfig(kind="hashing", dimensions=64))


def test_small_table_stays_exact(tmp_path, embedder):
    store = VectorStore(tmp_path / "lance", VectorIndexConfig(min_rows=256))
    stats = store.sync("chunks", _rows(100, 1, "note"), embedder)
    assert stats.index == "exact"
    assert vector_index_state(store.table("chunks")) is None
    assert nearest(store, embedder, "note 5 river")[1] is False


def test_index_built_used_and_kept_current(tmp_path, embedder):
    store = VectorStore(tmp_path / "lance", VectorIndexConfig(min_rows=256))
    rows = _rows(300, 2, "note")
    assert store.sync("chunks", rows, embedder).index == "built"
    assert vector_index_state(store.table("chunks")) == (300, 0)
    target = rows[137]
    assert nearest(store, embedder, target["text"]) == (target["id"], True)
    assert recall_chunks(store, embedder, target["text"], k=3)[0].chunk_id == target["id"]

    added = _rows(40, 3, "fresh")
    stats = store.sync("chunks", rows + added, embedder)
    assert (stats.embedded, stats.index) == (40, "updated")  # 40 new rows > 5 % of the table: folded in
    assert vector_index_state(store.table("chunks")) == (340, 0)
    assert recall_chunks(store, embedder, added[7]["text"], k=3)[0].chunk_id == added[7]["id"]
    assert nearest(store, embedder, added[7]["text"]) == (added[7]["id"], True)

    kept = rows[:200] + added
    stats = store.sync("chunks", kept, embedder)
    assert (stats.embedded, stats.deleted) == (0, 100)
    assert store.count("chunks") == 240
    hits = [item.chunk_id for item in recall_chunks(store, embedder, rows[250]["text"], k=10)]
    assert rows[250]["id"] not in hits
    assert recall_chunks(store, embedder, rows[42]["text"], k=3)[0].chunk_id == rows[42]["id"]


def test_index_config_key(tmp_path):
    config = parse_config({"vector_index": {"min_rows": 5000, "kind": "IVF_PQ"}}, tmp_path / "mnemo.yaml")
    assert (config.vector_index.min_rows, config.vector_index.kind) == (5000, "IVF_PQ")
    # by default the index starts where recall stops holding the chunks table (below, it would go unread)
    assert parse_config({}, tmp_path / "mnemo.yaml").vector_index.min_rows == RecallSettings().hold_rows == 50_000


def test_lookups_by_id_use_an_index_that_follows_every_sync(tmp_path, embedder):
    from mnemo.recall.search import rows_by_id

    store = VectorStore(tmp_path / "lance")
    rows = _rows(50, 4, "note")
    store.sync("chunks", rows, embedder)
    wanted = ["chunk_note_0003", "chunk_note_0042"]
    assert sorted(rows_by_id(store.must_open("chunks"), wanted, ["id"])) == wanted
    plan = store.table("chunks").search().where("id IN ('chunk_note_0003')").explain_plan()
    assert "ScalarIndexQuery" in plan or "id_idx" in plan, plan
    store.sync("chunks", rows[:40] + _rows(5, 5, "late"), embedder)  # ten deleted, five added
    found = rows_by_id(store.must_open("chunks"), ["chunk_note_0003", "chunk_note_0042", "chunk_late_0004"], ["id"])
    assert sorted(found) == ["chunk_late_0004", "chunk_note_0003"]


def test_grounding_neighbours_search_an_indexed_entities_table(tmp_path, embedder):
    from mnemo.extract.grounding import LanceEntityNeighbours

    store = VectorStore(tmp_path / "lance", VectorIndexConfig(min_rows=256))
    rows = [{**r, "id": r["id"].replace("chunk_", "concept_")} for r in _rows(300, 6, "topic")]
    assert store.sync("entities", rows, embedder).index == "built"
    hits = LanceEntityNeighbours(store.open("entities"), embedder).search([rows[123]["embed_text"]], 3)
    assert hits[0][0][0] == rows[123]["id"] and hits[0][0][1] > 0.99


def _text_index_state(table):
    stats = next(table.index_stats(i.name) for i in table.list_indices() if i.index_type == "FTS")
    return stats.num_indexed_rows, stats.num_unindexed_rows


def _words(store, text):
    table = store.table("chunks")
    return [r["id"] for r in table.search(text, query_type="fts", fts_columns="embed_text").limit(5).select(["id"]).to_list()]


def test_full_text_index_is_not_rebuilt_for_small_changes_yet_finds_them(tmp_path, embedder):
    store = VectorStore(tmp_path / "lance")
    rows = _rows(200, 7, "note")
    store.sync("chunks", rows, embedder)
    assert _text_index_state(store.table("chunks")) == (200, 0)

    changed = dict(rows[10], text="zanzibar heron", embed_text="zanzibar heron")
    fresh = dict(rows[0], id="chunk_fresh", text="quokka lantern", embed_text="quokka lantern")
    store.sync("chunks", [changed, fresh] + rows[11:], embedder)  # 1 changed, 1 added, 10 deleted
    assert _text_index_state(store.table("chunks"))[1] == 2  # written rows wait, searched unindexed
    assert _words(store, "zanzibar") == [changed["id"]]
    assert _words(store, "quokka") == ["chunk_fresh"]
    assert _words(store, rows[3]["embed_text"].split()[1]) == []  # "note 3 ...": deleted rows are masked
    assert not _words(store, rows[10]["embed_text"].split()[1])  # the old text of the changed row is gone

    many = [dict(r, id=f"chunk_more_{i}") for i, r in enumerate(_rows(20, 8, "more"))]
    store.sync("chunks", [changed, fresh] + rows[11:] + many, embedder)  # 20 new rows > 5 %: folded in
    assert _text_index_state(store.table("chunks")) == (211, 0)
    assert _words(store, "quokka") == ["chunk_fresh"]
