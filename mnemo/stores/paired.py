"""MiniLM and multilingual e5 side by side in one vector: the embedder of namespaces whose notes
are written in languages other than English (`ingest.embedder_choice`).

A passage's vector is its MiniLM unit vector and its e5 unit vector laid end to end, each
halved in length (768 dimensions, unit length). A query's vector is laid out the same way with
its two halves weighted, MiniLM by `1 - e5_share` and e5 by `e5_share`, so the cosine between
a query and a passage is that blend of the two models' cosines (up to one factor per query,
which changes no ranking): MiniLM's fine English sense and e5's reach across languages, in the
one vector column, searched by the one index, with no second search at recall.
"""

import numpy as np

from mnemo.stores.e5 import E5Embedder
from mnemo.stores.embedders import MiniLMEmbedder

E5_SHARE = 0.35  # the weight of e5's cosine in a query's blend, fitted by benchmarks/multilingual_pair.py
HALF = np.float32(1.0 / np.sqrt(2.0))


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


class PairedEmbedder:
    """MiniLM's and e5's vectors of a text, end to end (`minilm+e5`)."""

    name = "minilm-l6-v2+e5-small-q4"

    def __init__(self, batch_size: int = 64, e5_share: float = E5_SHARE) -> None:
        self.minilm = MiniLMEmbedder(batch_size)
        self.e5 = E5Embedder(batch_size)
        self.dim = self.minilm.dim + self.e5.dim
        self.e5_share = e5_share

    def load(self) -> None:
        """Load both models now (a long-lived process does this once, before its first text)."""
        self.minilm.load()
        self.e5.load()

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of passages: both models' unit vectors, halved, end to end."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        halves = [_unit(self.minilm.encode(texts)) * HALF, _unit(self.e5.encode(texts)) * HALF]
        return np.hstack(halves).astype(np.float32)

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of queries, MiniLM's half weighted by 1 - e5_share and e5's (`query: `) by e5_share."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        blend = np.hstack([_unit(self.minilm.encode_query(texts)) * (1.0 - self.e5_share),
                           _unit(self.e5.encode_query(texts)) * self.e5_share])
        return _unit(blend)
