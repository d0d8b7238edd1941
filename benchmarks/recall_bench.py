"""Recall latency: eager (and deliberate, when it exists) at vault scale, eager at vector scale.

The vector-scale tables hold generated unit vectors and generated text in exactly the
columns the `chunks` table has, so the measured calls are mnemo's own recall.
"""

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lancedb
import numpy as np
import pyarrow as pa

from benchmarks.synth import WORDS, Entity
from mnemo.config import VectorIndexConfig
from mnemo.recall.engine import RecallEngine
from mnemo.recall.settings import Mode, RecallSettings
from mnemo.stores.embedders import Embedder
from mnemo.stores.graph import GraphStore
from mnemo.stores.vector_index import refresh_vector_index
from mnemo.stores.vectors import TEXT_COLUMN, VectorStore
from ontology import load_ontology

TEMPLATES = ("What did I discuss with {name}?", "{name}", "notes about {name} and the budget",
             "when did I last meet {name}", "{word} {word2} {name}", "what happened with the {word} review")


def queries(entities: list[Entity], count: int, seed: int = 11) -> list[str]:
    """Deterministic questions about the vault's entities, popular ones more often."""
    rng = random.Random(seed)
    weights = [1 / (i + 1) for i in range(len(entities))]
    out = []
    for _ in range(count):
        entity = rng.choices(entities, weights)[0]
        out.append(rng.choice(TEMPLATES).format(name=entity.name, word=rng.choice(WORDS), word2=rng.choice(WORDS)))
    return out


def percentiles(samples: list[float]) -> dict[str, float]:
    ms = np.asarray(samples) * 1000
    return {"p50_ms": float(np.percentile(ms, 50)), "p95_ms": float(np.percentile(ms, 95)),
            "p99_ms": float(np.percentile(ms, 99)), "n": len(samples)}


def latency(call: Callable[[str], Any], texts: list[str], warmup: int = 5) -> dict[str, float]:
    """Per-query wall time of `call`, after a few warm-up calls."""
    for text in texts[:warmup]:
        call(text)
    samples = []
    for text in texts:
        start = time.perf_counter()
        call(text)
        samples.append(time.perf_counter() - start)
    return percentiles(samples)


def eager(store: VectorStore, embedder: Embedder, k: int = 10, settings: RecallSettings | None = None) -> Callable[[str], Any]:
    """The search step of eager recall alone (`RecallEngine.search`: the query embedded, the
    vector and full-text searches fused), as an assistant's recall runs it: by default exactly
    over held vectors up to `hold_rows` chunks, through LanceDB (and its ANN index) above."""
    engine = RecallEngine(store.path.parent, store, GraphStore(store.path.parent / "graph.kuzu", load_ontology()), embedder, settings)
    return lambda query: engine.search(query, k)


def deliberate(config_path: Path, namespace: str, texts: list[str], k: int = 10) -> dict[str, Any]:
    """Deliberate recall latency through MemoryClient."""
    return client_recall(config_path, namespace, texts, "deliberate", k)


def client_recall(config_path: Path, namespace: str, texts: list[str], mode: Mode, k: int = 10) -> dict[str, Any]:
    """Recall latency through MemoryClient, the whole path an assistant calls (search, scored
    ranking, graph hydration, sleep-mode shaping)."""
    from mnemo.client import MemoryClient

    memory = MemoryClient(namespace=namespace, config=config_path)
    return {"status": "measured", **latency(lambda q: memory.recall(q, k=k, mode=mode), texts)}


def _text(rng: random.Random) -> str:
    return " ".join(rng.choices(WORDS, k=rng.randint(20, 60)))


def _vectors(generator: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    """n unit vectors, each a random centre plus as much noise again (cosine to it about 0.7), in
    float32 as the vector sync stores them: every operand stays float32 (a NumPy float64 scalar
    would turn the whole table's column into doubles)."""
    picked = centres[generator.integers(0, len(centres), n)]
    vectors = picked + generator.standard_normal(picked.shape, dtype=np.float32) / np.float32(np.sqrt(centres.shape[1]))
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _chunk_columns(offset: int, n: int, rows: int) -> dict[str, list[Any]]:
    """The columns of mnemo's chunks table besides text and vector: 20 chunks per note, each
    linked to the one before and after it, as the whole recall call reads them."""
    ids = range(offset, offset + n)
    return {
        "id": [f"chunk_{i:09d}" for i in ids], "namespace": ["scale"] * n, "doc_id": [f"doc_{i // 20:08d}" for i in ids],
        "position": [i % 20 for i in ids], "path": [f"Notes/{i // 20}.md" for i in ids], "title": [""] * n,
        "heading": [""] * n, "kind": ["note"] * n, "timestamp": [""] * n,
        "prev_id": [f"chunk_{i - 1:09d}" if i % 20 else "" for i in ids],
        "next_id": [f"chunk_{i + 1:09d}" if i % 20 != 19 and i + 1 < rows else "" for i in ids],
        "metadata": ["{}"] * n,
    }


def build_vector_table(path: Path, rows: int, dim: int, seed: int = 3, batch: int = 100_000, fts: bool = True,
                       keep: bool = False) -> dict[str, Any]:
    """A `chunks` table of `rows` generated unit vectors (clustered by topic, one centre per
    500 rows) and texts, with mnemo's FTS index; `keep` returns the vectors too."""
    rng = random.Random(seed)
    generator = np.random.default_rng(seed)
    centres = generator.standard_normal((max(1, rows // 500), dim), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    db = lancedb.connect(str(path))
    table = None
    kept = []
    start = time.perf_counter()
    for offset in range(0, rows, batch):
        n = min(batch, rows - offset)
        vectors = _vectors(generator, centres, n)
        kept.extend([vectors] if keep else [])
        texts = [_text(rng) for _ in range(n)]
        data = pa.table({**_chunk_columns(offset, n, rows), "text": texts, TEXT_COLUMN: texts,
                         "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), dim)})
        table = db.create_table("chunks", data=data) if table is None else table
        if offset:
            table.add(data)
    out: dict[str, Any] = {"write_s": time.perf_counter() - start}
    assert table is not None, "rows must be at least 1"
    if fts:
        start = time.perf_counter()
        table.create_fts_index(TEXT_COLUMN, replace=True)
        table.create_scalar_index("id", replace=True)  # as the vector sync builds them
        out["fts_index_s"] = time.perf_counter() - start
    if keep:
        out["vectors"] = np.concatenate(kept)
    return out


def vector_scale(work: Path, rows: int, embedder: Embedder, query_texts: list[str], exact_queries: int = 20) -> dict[str, Any]:
    """Eager recall latency over `rows` generated chunks (mnemo's recall, unchanged): its search
    step through LanceDB, exact on a few queries, then through the ANN index the vector sync
    builds (here whatever the size: at most `hold_rows` chunks recall would search held vectors
    instead), on all queries; then the whole call. The generated vectors come back under
    "vectors" (for recall@10 against exact search)."""
    path = scale_path(work, rows)
    build = build_vector_table(path, rows, embedder.dim, keep=True)
    store = VectorStore(path, VectorIndexConfig(min_rows=256))
    through_lancedb = RecallSettings(hold_rows=0)
    out: dict[str, Any] = {"rows": rows, **build,
                           "exact": latency(eager(store, embedder, settings=through_lancedb), query_texts[:exact_queries], warmup=2)}
    table = store.table("chunks")
    start = time.perf_counter()
    out["index"] = refresh_vector_index(table, store.index)
    out["index_s"], out["index_kind"] = time.perf_counter() - start, store.index.kind
    return {**out, **recall_latency(work, store, embedder, query_texts)}


def scale_path(work: Path, rows: int) -> Path:
    """Where `vector_scale` writes its table of `rows` chunks."""
    return work / f"scale-{rows}"


def recall_latency(work: Path, store: VectorStore, embedder: Embedder, query_texts: list[str]) -> dict[str, Any]:
    """Eager recall over a generated table: its search step through LanceDB ("eager"), then the
    whole call ("eager_full"). `vector_scale` times it in the process that built the table; a
    fresh process that only opens it (`benchmarks.scale --served`) times it as a server would."""
    return {"eager": latency(eager(store, embedder, settings=RecallSettings(hold_rows=0)), query_texts),
            "eager_full": latency(whole_call(work, store, embedder), query_texts)}


def whole_call(work: Path, store: VectorStore, embedder: Embedder) -> Any:
    """The whole eager recall (`RecallEngine.recall`: both searches, the scored ranking with
    neighbouring turns, sleep shaping) over a namespace that has chunks but no graph."""
    root = work / "scale-namespace"
    root.mkdir(parents=True, exist_ok=True)
    engine = RecallEngine(root, store, GraphStore(root / "graph.kuzu", load_ontology()), embedder)
    return lambda query: engine.recall(query, k=10, mode="eager")
