"""Embedding tells how many passages of how many are embedded, every few dozen, with the same
vectors as without counting (the sync that uses it: tests/cli/test_ingest_progress.py)."""

import numpy as np

from mnemo.config import EmbedderConfig
from mnemo.stores.embed_progress import COUNT_EVERY, CountingEmbedder
from mnemo.stores.embedders import build_embedder


def test_a_long_encode_call_is_counted_in_parts_with_the_same_vectors() -> None:
    inner, said = build_embedder(EmbedderConfig(kind="hashing")), []
    texts = [f"passage {n} about herons and kayaks" for n in range(150)]
    counted = CountingEmbedder(inner, 150, lambda done, total: said.append((done, total)))
    assert np.allclose(counted.encode(texts), inner.encode(texts))
    assert said == [(0, 150), (COUNT_EVERY, 150), (2 * COUNT_EVERY, 150), (150, 150)]

