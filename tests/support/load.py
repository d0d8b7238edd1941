"""Concurrent recall callers (threads and processes) against a namespace while a writer runs.

A call is vector + full-text recall over LanceDB, then graph hydration of the hits in Kùzu.
While a writer holds the graph, hydration cannot open it: the call still answers from the
vector store and counts as degraded. A call that raises is a failure.
"""

import json
import statistics
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.process import BaseProcess
from pathlib import Path

from mnemo.config import EmbedderConfig
from mnemo.errors import StoreLocked
from mnemo.recall.hybrid import recall_chunks
from mnemo.stores.embedders import build_embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from ontology import load_ontology
from tests.support.crash import child_context

QUERIES = ("Who leads Project Heron?", "running club in Lisbon", "books about systems", "Alice birthday", "Kyoto trip")


@dataclass
class Calls:
    latencies: list[float] = field(default_factory=list)
    degraded: int = 0
    failures: list[str] = field(default_factory=list)

    def merge(self, other: "Calls") -> None:
        self.latencies += other.latencies
        self.degraded += other.degraded
        self.failures += other.failures

    def summary(self) -> dict[str, float]:
        ordered = sorted(self.latencies)
        pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0  # noqa: E731
        return {
            "calls": len(self.latencies) + len(self.failures), "failures": len(self.failures), "degraded": self.degraded,
            "p50_ms": round(pick(0.50), 1), "p95_ms": round(pick(0.95), 1),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 1) if ordered else 0.0,
        }


def call_once(files: NamespaceFiles, query: str, calls: Calls) -> None:
    """One recall with graph hydration; a locked graph degrades the call, an exception fails it."""
    start = time.perf_counter()
    try:
        items = recall_chunks(VectorStore(files.vectors_path), build_embedder(EmbedderConfig(kind="hashing")), query, 5)
        try:
            GraphStore(files.graph_path, load_ontology()).query(
                "MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE c.id IN $ids RETURN n.title AS title",
                {"ids": [i.chunk_id for i in items]}, wait_seconds=0.2,
            )
        except StoreLocked:
            calls.degraded += 1
    except Exception as exc:  # noqa: BLE001 - the load test counts every kind of failure
        calls.failures.append(f"{type(exc).__name__}: {exc}")
        return
    calls.latencies.append(time.perf_counter() - start)


def call_until(data_dir: str, namespace: str, stop: threading.Event | Path, min_calls: int, calls: Calls) -> None:
    """Call recall in a loop until `stop` is set (a thread) or exists (a process), at least min_calls times."""
    files = NamespaceFiles(Path(data_dir), namespace)
    n = 0
    while n < min_calls or not (stop.is_set() if isinstance(stop, threading.Event) else stop.exists()):
        call_once(files, QUERIES[n % len(QUERIES)], calls)
        n += 1


def process_caller(data_dir: str, namespace: str, stop_file: str, min_calls: int, out: str) -> None:
    """Body of a caller process: loop, then write the results as JSON."""
    calls = Calls()
    call_until(data_dir, namespace, Path(stop_file), min_calls, calls)
    Path(out).write_text(json.dumps({"latencies": calls.latencies, "degraded": calls.degraded, "failures": calls.failures}))


def start_processes(data_dir: Path, namespace: str, work: Path, count: int, min_calls: int) -> list[tuple[BaseProcess, Path]]:
    procs: list[tuple[BaseProcess, Path]] = []
    for i in range(count):
        out = work / f"caller{i}.json"
        proc = child_context().Process(target=process_caller, args=(str(data_dir), namespace, str(work / "stop"), min_calls, str(out)))
        proc.start()
        procs.append((proc, out))
    return procs


def collect(procs: list[tuple[BaseProcess, Path]], calls: Calls) -> None:
    for proc, out in procs:
        proc.join(120)
        if not out.exists():
            calls.failures.append(f"caller process ended without results (exit code {proc.exitcode})")
            continue
        data = json.loads(out.read_text())
        calls.merge(Calls(data["latencies"], data["degraded"], data["failures"]))
