"""The packaged MiniLM's forward pass in numpy, for the few texts a small run embeds.

A run launched for one changed note embeds a handful of chunks; importing torch and
transformers and building the model took 2.7-3.1 s of it, while the forward pass for those
texts takes milliseconds. This is the same BERT encoder (6 layers, 12 heads, hidden 384,
exact GELU, LayerNorm eps 1e-12) read from the package's own `model.safetensors` and
`tokenizer.json`, followed by the same mean pooling and normalization. Bulk encoding stays
on torch, which is faster per text; the two agree to 1e-6 (tests/stores/test_minilm.py).
"""

import json
import struct
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

HEADS = 12
LAYERS = 6
EPS = 1e-12
MAX_TOKENS = 256  # the package's max_seq_length (sentence_bert_config.json)

# erf by Abramowitz & Stegun 7.1.26 (absolute error under 1.5e-7)
_P = 0.3275911
_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file as a read-only numpy view of one memory map."""
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    kinds = {"F32": np.float32, "I64": np.int64}
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        if meta["dtype"] not in kinds:
            raise ValueError(f"{path}: tensor {name} has dtype {meta['dtype']}, expected F32 or I64")
        start, end = meta["data_offsets"]
        tensors[name] = data[start:end].view(kinds[meta["dtype"]]).reshape(meta["shape"])
    return tensors


def longest_first(texts: list[str], batch_size: int) -> Iterator[list[int]]:
    """Indices of `texts` in batches, longest first (similar lengths pad less)."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    for start in range(0, len(order), batch_size):
        yield order[start:start + batch_size]


def _erf(x: np.ndarray) -> np.ndarray:
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + _P * a)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return (0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)))).astype(np.float32, copy=False)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(-1, keepdims=True)
    return centered / np.sqrt(var + np.float32(EPS)) * weight + bias


_CONTROLLER: tuple[int, Any] | None = None  # (modules imported when it was made, the controller)


def _blas() -> Any:
    """threadpoolctl's controller of the BLAS libraries loaded in the process. Making one scans
    every loaded library (1.3 ms); it is kept until a module is imported, since an import may
    load another BLAS (scipy ships its own OpenBLAS), which a kept controller would not limit."""
    global _CONTROLLER
    if _CONTROLLER is None or _CONTROLLER[0] != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        controller = ThreadpoolController()
        _CONTROLLER = (len(sys.modules), controller)  # counted after it: the first use imports threadpoolctl
    return _CONTROLLER[1]


def one_blas_thread() -> AbstractContextManager[Any]:
    """numpy's BLAS on one thread while the block runs (process-wide: threadpoolctl sets the
    library's thread count). For latency-bound work beside other threads: a query's forward pass
    took 5.6 ms on two idle cores against 7.1 on one, but a p95 of 112 ms against 15 when both
    cores were busy; recall's vector math runs while its full-text search runs on another thread."""
    return _blas().limit(limits=1, user_api="blas")


class _Layer(TypedDict):
    """One encoder layer's weights (matrices transposed for `x @ w`) and its two LayerNorms' weight and bias."""

    qkv: np.ndarray
    qkv_b: np.ndarray
    out: np.ndarray
    out_b: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_b: np.ndarray
    down: np.ndarray
    down_b: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class NumpyMiniLM:
    """all-MiniLM-L6-v2 from the package's files, without torch."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest
        w = read_safetensors(path / "model.safetensors")
        self.words = w["embeddings.word_embeddings.weight"]
        self.positions = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.embed_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = [self._layer(w, f"encoder.layer.{i}.") for i in range(LAYERS)]

    @staticmethod
    def _layer(w: dict[str, np.ndarray], p: str) -> _Layer:
        qkv = np.concatenate([w[f"{p}attention.self.{n}.weight"] for n in ("query", "key", "value")])
        return {
            "qkv": np.ascontiguousarray(qkv.T),
            "qkv_b": np.concatenate([w[f"{p}attention.self.{n}.bias"] for n in ("query", "key", "value")]),
            "out": np.ascontiguousarray(w[f"{p}attention.output.dense.weight"].T),
            "out_b": w[f"{p}attention.output.dense.bias"],
            "norm1": (w[f"{p}attention.output.LayerNorm.weight"], w[f"{p}attention.output.LayerNorm.bias"]),
            "up": np.ascontiguousarray(w[f"{p}intermediate.dense.weight"].T),
            "up_b": w[f"{p}intermediate.dense.bias"],
            "down": np.ascontiguousarray(w[f"{p}output.dense.weight"].T),
            "down_b": w[f"{p}output.dense.bias"],
            "norm2": (w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"]),
        }

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Unit vectors of `texts`, longest first in batches (less padding), in the given order,
        BLAS on one thread (`one_blas_thread`)."""
        with one_blas_thread():
            return self._encode(texts, batch_size)

    def _encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        out = np.zeros((len(texts), self.words.shape[1]), dtype=np.float32)
        for picked in longest_first(texts, batch_size):
            encodings = self.tokenizer.encode_batch([texts[i].strip() for i in picked])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
            tokens = self._forward(ids, mask)
            mean = (tokens * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), np.float32(1e-9))
            out[picked] = mean / np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), np.float32(1e-12))
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        x = self.words[ids] + self.positions[:length] + self.token_type
        x = _layer_norm(x, *self.embed_norm)
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]  # padded keys get no weight
        width = x.shape[-1] // HEADS
        scale = np.float32(1.0 / np.sqrt(width))
        for layer in self.layers:
            qkv = (x @ layer["qkv"] + layer["qkv_b"]).reshape(batch, length, 3, HEADS, width).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, HEADS * width)
            x = _layer_norm(context @ layer["out"] + layer["out_b"] + x, *layer["norm1"])
            hidden = _gelu(x @ layer["up"] + layer["up_b"])
            x = _layer_norm(hidden @ layer["down"] + layer["down_b"] + x, *layer["norm2"])
        return x
