"""Embedding progress: an embedder that counts, after each encode call, how many passages of how
many are embedded (`VectorStore.sync_groups(progress=...)`)."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mnemo.stores.embedders import Embedder

Report = Callable[[int, int], None]  # (passages embedded, passages to embed)


@dataclass
class CountingEmbedder:
    """An embedder that reports, after each encode call, how many of `total` texts it has encoded."""

    inner: Embedder
    total: int
    report: Report
    done: int = 0

    def __post_init__(self) -> None:
        self.name, self.dim = self.inner.name, self.inner.dim
        self.report(0, self.total)

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.inner.encode(texts)
        self.done += len(texts)
        self.report(self.done, self.total)
        return vectors

    def encode_query(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode_query(texts)
