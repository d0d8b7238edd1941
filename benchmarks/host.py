"""How fast the host is, read by two fixed workloads: the same work in every run, so that wall
times of runs made on different hosts (or on one host at different hours) can be compared.

The suite reads them before its first step and after each one, in its own process, while no
worker runs.
"""

import time
from collections.abc import Callable
from typing import Any

import numpy as np

ROWS, DIM, QUERIES = 100_000, 384, 5
REPEATS = 3  # each reading is the best of this many runs of each workload


def _python_pass() -> None:
    """Interpreted work like the extraction's and consolidation's passes over every row: 200,000
    keyed rows made, looked up and sorted."""
    rows = {f"entity_{n:06d}": (n * 7919) % 100_003 for n in range(200_000)}
    sorted(rows, key=rows.__getitem__)


def _scan(matrix: np.ndarray, queries: np.ndarray) -> None:
    """Memory-bound work like an exact vector search: one query at a time against every row."""
    for query in queries:
        np.argpartition(-(matrix @ query), 10)


def _best(work: Callable[[], None], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def host_speed(repeats: int = REPEATS) -> dict[str, float]:
    """Seconds of each workload, the best of `repeats` (lower is faster): `python_s`, a pass over
    200,000 rows in Python; `numpy_s`, an exact scan of 100,000 float32 rows of 384 dimensions by
    five queries."""
    generator = np.random.default_rng(0)
    matrix = generator.standard_normal((ROWS, DIM), dtype=np.float32)
    queries = generator.standard_normal((QUERIES, DIM), dtype=np.float32)
    return {"python_s": round(_best(_python_pass, repeats), 4), "numpy_s": round(_best(lambda: _scan(matrix, queries), repeats), 4)}


def speed_line(readings: list[dict[str, Any]]) -> str | None:
    """The report's line for one run's readings, each taken with the default repeats (None for a run
    saved before they were taken)."""
    if not readings:
        return None
    python = [r["python_s"] for r in readings]
    scan = [r["numpy_s"] for r in readings]
    return (f"host speed ({len(readings)} readings, best of {REPEATS} each, lower is faster): Python pass {min(python):.3f}–{max(python):.3f} s, "
            f"NumPy scan {min(scan):.3f}–{max(scan):.3f} s")
