"""A document's meaning as one vector: the mean of its rows' vectors, read from a real LanceDB table,
the same whatever order the rows were written in."""

from pathlib import Path

import numpy as np

from mnemo.config import EmbedderConfig
from mnemo.stores.embedders import build_embedder
from mnemo.stores.vectors import VectorStore

ROWS = [{"id": f"c{i}", "doc_id": "a" if i < 3 else "b", "embed_text": f"passage {i} about boats"} for i in range(5)]


def test_each_documents_mean_vector_in_any_row_order(tmp_path: Path) -> None:
    embedder = build_embedder(EmbedderConfig(kind="hashing", dimensions=32))
    forward, backward = VectorStore(tmp_path / "one"), VectorStore(tmp_path / "two")
    forward.sync("chunks", ROWS, embedder)
    backward.sync("chunks", list(reversed(ROWS)), embedder)
    means = forward.document_means()
    vectors = np.asarray(embedder.encode([r["embed_text"] for r in ROWS]), dtype=np.float64)
    assert sorted(means) == ["a", "b"]
    assert np.allclose(means["a"], vectors[:3].mean(axis=0), atol=1e-6)
    assert np.allclose(means["b"], vectors[3:].mean(axis=0), atol=1e-6)
    assert all(np.array_equal(means[d], backward.document_means()[d]) for d in means)  # bit for bit
    assert VectorStore(tmp_path / "empty").document_means() == {}
