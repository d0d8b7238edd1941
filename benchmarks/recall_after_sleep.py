"""Eager recall latency before and after sleep mode on one synthetic vault, in one process:
generate, ingest, measure recall, consolidate (the sleep job), measure recall again. The two
figures come from the same run, so their ratio is what to compare on a shared machine.
Usage: .venv/bin/python -m benchmarks.recall_after_sleep WORK [--notes 3000] [--embedder minilm] [--queries 100]
"""

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks import measure, recall_bench, sleep_bench  # noqa: E402
from benchmarks.synth import generate  # noqa: E402
from mnemo.sleep.summaries import read_summaries  # noqa: E402


def run(work: Path, notes: int, embedder: str, query_count: int, seed: int = 7) -> dict[str, Any]:
    vault = generate(work / "src", notes, seed)
    runner = measure.IngestRunner(measure.write_config(work, vault.root, embedder, work / "src" / "chats"))
    measure.warm(runner.embedder())
    runner.run()
    questions = recall_bench.queries(vault.entities, query_count)
    before = recall_bench.client_recall(runner.config_path, measure.NAMESPACE, questions, "eager")
    sleep = sleep_bench.first_run(runner)
    summaries = read_summaries(runner.files.root)
    after = recall_bench.client_recall(runner.config_path, measure.NAMESPACE, questions, "eager")
    return {"notes": notes, "embedder": embedder, "queries": len(questions), "sleep_s": sleep.get("full_s"),
            "summaries": {level: sum(1 for s in summaries if s["level"] == level) for level in ("day", "week", "month")},
            "eager_before_sleep": before, "eager_after_sleep": after,
            "p95_ratio_after_before": round(after["p95_ms"] / before["p95_ms"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--notes", type=int, default=3000)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    print(json.dumps(run(args.work, args.notes, args.embedder, args.queries), indent=1))


if __name__ == "__main__":
    main()
