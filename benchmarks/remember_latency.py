"""Remember → recallable latency against recall latency, in one run.

    .venv/bin/python -m benchmarks.remember_latency --notes 2000 --embedders hashing minilm

For each embedder: a synthetic vault of `--notes` notes is ingested (the offline steps, no
Dagster), then `--n` memories are remembered one at a time. Each is timed from the call to
`remember` until a recall of its unique words returns it first (`remember_to_recall`), and
`remember` alone is timed too. Recall latency is timed on questions about the vault with no
remember in between (`recall`) and on the first recall after each remember (`recall_after`, which
reads the table's new version). After that recall, the held rows of the new version are also
made both ways, on the same version, one after the other: followed from the previous version
(`held_refresh`, what recall does from FOLLOW_FROM_ROWS rows) and read whole (`held_whole_read`, what it did
before). Ratios are within the run; the machine is shared.
"""

import argparse
import json
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.measure import NAMESPACE, warm, write_config
from benchmarks.recall_bench import percentiles
from benchmarks.synthetic_vault import generate
from mnemo.client import MemoryClient
from mnemo.config import load_config
from mnemo.pipelines.ingest import IngestPipeline
from mnemo.recall.held import refreshed
from mnemo.recall.search import HeldChunks
from mnemo.recall.settings import RecallSettings

QUESTIONS = ("what happened with the budget review", "notes about the offsite", "who did I meet last week",
             "project planning", "coffee and a long walk")


def _ingest(work: Path, notes: int, embedder: str) -> MemoryClient:
    vault = work / "vault"
    generate(vault, notes)
    config = load_config(write_config(work, vault, embedder))
    client = MemoryClient(NAMESPACE, config, settings=RecallSettings(random_share=0.0))
    warm(client.embedder)
    IngestPipeline(config, client.files, client.ontology, client.vectors, client.graph, client.embedder).run()
    return client


def _timed(fn: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _held_both_ways(held: HeldChunks | None, client: MemoryClient, follow: list[float], whole: list[float]) -> None:
    """Time the held rows of the table's version made both ways from `held`, the previous version's."""
    table = client.vectors.must_open("chunks")
    follow.append(_timed(lambda: refreshed(held, table))[0])
    whole.append(_timed(lambda: HeldChunks(table))[0])


def measure(client: MemoryClient, n: int) -> dict[str, Any]:
    remember: list[float] = []
    to_recall: list[float] = []
    after: list[float] = []
    steady: list[float] = []
    follow: list[float] = []
    whole: list[float] = []
    for question in QUESTIONS * 2:  # warm-up
        client.recall(question)
    for i in range(n):
        steady.append(_timed(partial(client.recall, QUESTIONS[i % len(QUESTIONS)]))[0])
        text = f"Memory {i}: the zorblax{i} filter in the quennet{i} pump was replaced on site."
        start = time.perf_counter()
        memory = client.remember(text)
        remember.append(time.perf_counter() - start)
        before = client.engine.reads.held_rows[1] if client.engine.reads.held_rows else None
        took, result = _timed(partial(client.recall, f"quennet{i} pump zorblax{i}"))
        after.append(took)
        to_recall.append(time.perf_counter() - start)
        _held_both_ways(before, client, follow, whole)  # after the recall: it is timed untouched
        if memory.status != "recallable" or not result.items or result.items[0].text != text:
            raise SystemExit(f"memory {i} was not recalled first: {memory.status}")
    out: dict[str, Any] = {name: percentiles(samples) for name, samples in
           (("remember", remember), ("remember_to_recall", to_recall), ("recall_after", after), ("recall", steady),
            ("held_refresh", follow), ("held_whole_read", whole))}
    out["ratio_remember_to_recall_p50"] = out["remember"]["p50_ms"] / out["recall"]["p50_ms"]
    out["ratio_recall_after_to_recall_p95"] = out["recall_after"]["p95_ms"] / out["recall"]["p95_ms"]
    out["ratio_held_refresh_to_whole_read_p50"] = out["held_refresh"]["p50_ms"] / out["held_whole_read"]["p50_ms"]
    out["chunks"] = client.vectors.count("chunks")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--embedders", nargs="+", default=["hashing", "minilm"])
    args = parser.parse_args()
    for embedder in args.embedders:
        with tempfile.TemporaryDirectory() as work:
            client = _ingest(Path(work), args.notes, embedder)
            result = measure(client, args.n)
        print(json.dumps({"embedder": embedder, "notes": args.notes, **result}, indent=None))


if __name__ == "__main__":
    main()
