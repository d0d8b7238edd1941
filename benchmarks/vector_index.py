"""Which LanceDB vector index, and with which search settings: recall@10 against exact search,
latency, and build time, on generated chunk vectors.

The vectors are clustered (unit vectors scattered around random centres, as sentence
embeddings of a person's notes cluster by topic); each query is a stored vector with noise
added, so it has true near neighbours. Exact search is numpy over all vectors.

Usage: .venv/bin/python -m benchmarks.vector_index WORK --rows 100000 [--types IVF_PQ IVF_HNSW_SQ] [--json OUT]
"""

import argparse
import json
import time
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from benchmarks.recall_bench import build_vector_table, percentiles
from mnemo.stores.vector_index import NPROBES, REFINE_FACTOR, build_vector_index, tune_search

DIM = 384


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int) -> list[set[int]]:
    """The k nearest rows by cosine (vectors are unit length), computed in blocks."""
    best: list[set[int]] = []
    for q in queries:
        scores = vectors @ q
        best.append(set(np.argpartition(-scores, k)[:k].tolist()))
    return best


def noisy_queries(vectors: np.ndarray, count: int, noise: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picked = vectors[rng.choice(len(vectors), count, replace=False)]
    moved = picked + noise * rng.standard_normal(picked.shape, dtype=np.float32) / np.sqrt(DIM)
    return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def measure(table: Any, queries: np.ndarray, truth: list[set[int]], nprobes: int, refine: int, k: int = 10) -> dict[str, float]:
    samples, hits = [], 0
    for q, true in zip(queries, truth):
        start = time.perf_counter()
        search = tune_search(table.search(q.tolist(), query_type="vector").metric("cosine").select(["id", "_distance"]).limit(k), nprobes, refine)
        rows = search.to_list()
        samples.append(time.perf_counter() - start)
        hits += len(true & {int(r["id"].removeprefix("chunk_")) for r in rows})
    return {"nprobes": nprobes, "refine_factor": refine, "k": k, "recall_at_k": hits / (k * len(truth)), **percentiles(samples)}


def ann_quality(path: Path, vectors: np.ndarray, count: int) -> dict[str, float]:
    """recall@10 of the vector search recall makes (index settings included) against exact
    search, for `count` noisy copies of stored vectors."""
    queries = noisy_queries(vectors, count, 0.5, seed=5)
    return measure(lancedb.connect(str(path)).open_table("chunks"), queries, exact_top(vectors, queries, 10), NPROBES, REFINE_FACTOR)


def ann_text_quality(path: Path, vectors: np.ndarray, query_vectors: np.ndarray, k: int) -> dict[str, float]:
    """recall@k of the same search against exact search for embedded text queries. A noisy copy of
    a stored vector sits close to it; a text query sits far from every generated vector, where the
    index's quantized distances separate candidates less (at 1M rows: recall@50 0.937 here, 1.0
    for noisy copies, both with refine 10)."""
    unit = query_vectors / np.linalg.norm(query_vectors, axis=1, keepdims=True)
    return measure(lancedb.connect(str(path)).open_table("chunks"), unit, exact_top(vectors, unit, k), NPROBES, REFINE_FACTOR, k)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--types", nargs="+", default=["IVF_PQ", "IVF_HNSW_SQ"])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--settings", nargs="+", default=["10:5", "20:5", "20:10", "40:10"], help="nprobes:refine_factor pairs")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    path = args.work / f"index-{args.rows}"
    build = build_vector_table(path, args.rows, DIM, fts=False, keep=True)
    vectors = build.pop("vectors")
    queries = noisy_queries(vectors, args.queries, 0.5, seed=5)
    truth = exact_top(vectors, queries, 10)
    table = lancedb.connect(str(path)).open_table("chunks")
    out: dict[str, Any] = {"rows": args.rows, **build, "exact": measure(table, queries, truth, 1, 1), "indexes": []}
    print(json.dumps(out["exact"]), flush=True)
    for kind in args.types:
        start = time.perf_counter()
        build_vector_index(table, kind)
        entry: dict[str, Any] = {"type": kind, "build_s": time.perf_counter() - start, "runs": []}
        for setting in args.settings:
            nprobes, refine = (int(x) for x in setting.split(":"))
            entry["runs"].append(measure(table, queries, truth, nprobes, refine))
            print(kind, round(entry["build_s"], 1), json.dumps(entry["runs"][-1]), flush=True)
        out["indexes"].append(entry)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
