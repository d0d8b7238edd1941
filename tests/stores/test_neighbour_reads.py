"""A sync embeds each window of rows longest text first but writes the rows in the order given,
so a document's chunks lie next to each other; recall reads a hit's neighbouring chunks by their
addresses and finds the same rows a lookup by id finds, however the table has been rewritten."""

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import mnemo.recall.rank as recall_rank
from mnemo.config import EmbedderConfig
from mnemo.recall.rank import rows_around
from mnemo.recall.search import TimeWindow, semantic
from mnemo.stores.embedders import build_embedder
from mnemo.stores.vector_rows import embedding_windows
from mnemo.stores.vectors import VectorStore

WORDS = "heron lantern compass garden signal meadow harvest engine bridge kestrel orchard quill ember atlas".split()


class Recording:
    """An embedder that keeps the texts of each encode call."""

    def __init__(self) -> None:
        self.inner = build_embedder(EmbedderConfig(kind="hashing", dimensions=32))
        self.name, self.dim = self.inner.name, self.inner.dim
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return self.inner.encode(texts)


def chunk_rows(docs: dict[str, list[str]]) -> list[dict[str, Any]]:
    """Chunk rows as the pipeline makes them: a document's chunks in order, linked prev/next."""
    rows: list[dict[str, Any]] = []
    for doc, texts in docs.items():
        ids = [f"chunk_{doc}_{text.replace(' ', '_')}" for text in texts]
        for position, (chunk_id, text) in enumerate(zip(ids, texts)):
            rows.append({
                "id": chunk_id, "doc_id": doc, "position": position, "path": f"{doc}.md", "title": doc, "heading": "",
                "kind": "note", "text": text, "embed_text": text, "timestamp": "", "metadata": "{}",
                "prev_id": ids[position - 1] if position else "", "next_id": ids[position + 1] if position + 1 < len(ids) else "",
            })
    return rows


def documents(count: int, length: int, salt: str = "") -> dict[str, list[str]]:
    return {f"doc{d:02d}": [" ".join(WORDS[(d + p + k) % len(WORDS)] for k in range(1 + (d * 7 + p * 3) % 9)) + f" {d} {p}{salt}"
                            for p in range(length)] for d in range(count)}


def physical_order(store: VectorStore) -> list[str]:
    data = store.table("chunks").search().select(["id"]).with_row_id(True).limit(None).to_arrow().to_pylist()
    return [r["id"] for r in sorted(data, key=lambda r: r["_rowid"])]


def test_windows_are_encoded_longest_first_and_written_in_the_order_given(tmp_path: Path) -> None:
    rows = chunk_rows(documents(9, 5))
    embedder = Recording()
    VectorStore(tmp_path / "lance").sync("chunks", rows, embedder, batch=4)  # windows of 32 rows
    assert physical_order(VectorStore(tmp_path / "lance")) == [r["id"] for r in rows]
    windows = embedding_windows(rows, 4)
    assert [len(part) for part, _ in windows] == [32, 13]
    assert embedder.calls == [[part[i]["embed_text"] for i in call] for part, calls in windows for call in calls]
    for call in embedder.calls:
        assert len(call) <= 4 and [len(t) for t in call] == sorted((len(t) for t in call), reverse=True)
    first = [t for call in embedder.calls[:8] for t in call]
    assert sorted(first) == sorted(r["embed_text"] for r in rows[:32])  # a window's calls hold its rows only
    table = VectorStore(tmp_path / "lance").table("chunks").search().select(["embed_text", "vector"]).limit(None).to_list()
    for row in table:  # every row holds its own text's vector, wherever its text fell in the calls
        assert np.allclose(row["vector"], embedder.inner.encode([row["embed_text"]])[0])


@pytest.fixture
def rewritten(tmp_path: Path) -> VectorStore:
    """A table written once, then synced again with one document edited in the middle (its chunks
    after the edit moved to the table's end), one deleted and one added."""
    store = VectorStore(tmp_path / "lance")
    embedder = build_embedder(EmbedderConfig(kind="hashing", dimensions=32))
    docs = documents(12, 6)
    store.sync("chunks", chunk_rows(docs), embedder)
    docs["doc03"][2] = "an edited passage about the heron"
    del docs["doc07"]
    docs["doc99"] = ["a new note", "about the lantern", "and the compass"]
    store.sync("chunks", chunk_rows(docs), embedder)
    return store


def test_neighbours_read_by_address_are_those_found_by_id(rewritten: VectorStore, monkeypatch: pytest.MonkeyPatch) -> None:
    table = rewritten.must_open("chunks")
    embedder = build_embedder(EmbedderConfig(kind="hashing", dimensions=32))
    hits = semantic(table, embedder.encode(["heron lantern compass garden"])[0], 40, TimeWindow())
    assert len(hits) == 40 and all(isinstance(h["_rowid"], int) for h in hits)
    by_id = rows_around(table, [{k: v for k, v in h.items() if k != "_rowid"} for h in hits], 2)  # no addresses: by id
    by_address = rows_around(table, hits, 2)
    assert sorted(by_address) == sorted(by_id) and by_id
    for row_id, row in by_id.items():
        assert {k: v for k, v in by_address[row_id].items() if k != "vector"} == {k: v for k, v in row.items() if k != "vector"}
        assert by_address[row_id]["vector"].tolist() == row["vector"].tolist()

    lookups: list[list[str]] = []
    by_id_lookup = recall_rank.rows_by_id
    monkeypatch.setattr(recall_rank, "rows_by_id", lambda t, ids, columns: lookups.append(ids) or by_id_lookup(t, ids, columns))
    untouched = [h for h in hits if h["doc_id"] in ("doc01", "doc05", "doc10")]
    assert untouched and rows_around(table, untouched, 2) and lookups == []  # all found beside the hits
    edited = [h for h in hits if h["doc_id"] == "doc03"]
    assert edited
    assert sorted(rows_around(table, edited, 2)) == sorted(rows_around(table, [{**h, "_rowid": None} for h in edited], 2))
