"""Embedding progress: an embedder that counts, after each encode call, how many passages of how
many are embedded (`VectorStore.sync_groups(progress=...)`)."""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mnemo.stores.embedders import Embedder

Report = Callable[[int, int], None]  # (passages embedded, passages to embed)
COUNT_EVERY = 64  # texts: an encode call of more is made in parts this size, each counted (a sync's calls are 512)


@dataclass
class CountingEmbedder:
    """An embedder that reports how many of `total` texts it has encoded, every `COUNT_EVERY` texts
    (the texts of a call are encoded in parts, in their order: the same vectors)."""

    inner: Embedder
    total: int
    report: Report
    done: int = 0

    def __post_init__(self) -> None:
        self.name, self.dim = self.inner.name, self.inner.dim
        self.report(0, self.total)

    def encode(self, texts: list[str]) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), COUNT_EVERY):
            part = texts[start:start + COUNT_EVERY]
            parts.append(np.asarray(self.inner.encode(part)))
            self.done += len(part)
            self.report(self.done, self.total)
        return np.concatenate(parts) if parts else np.asarray(self.inner.encode(texts))

    def encode_query(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode_query(texts)
