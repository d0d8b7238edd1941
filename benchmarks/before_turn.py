"""How long before_turn takes per chat turn: ingest one LoCoMo conversation (packaged MiniLM
embedder), then ask each of its questions as the latest user message and time the hook.

Usage: .venv/bin/python benchmarks/before_turn.py [FILE] [--conversations N] [--budget TOKENS]
"""

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from mnemo.client import MemoryClient  # noqa: E402
from mnemo.config import MnemoConfig, NamespaceConfig, SourceConfig  # noqa: E402
from mnemo.eval.locomo import load_conversations, prepare  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.serve.activity import mark_interaction  # noqa: E402
from mnemo.serve.hooks import before_turn, tokens  # noqa: E402
from mnemo.stores.embedders import MiniLMEmbedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo" / "locomo_dev.json"
NOW = dt.datetime(2023, 12, 1, 12, 0, tzinfo=dt.UTC)


def measure(conversation: dict, embedder: MiniLMEmbedder, budget: int) -> tuple[list[float], list[int]]:
    with tempfile.TemporaryDirectory(prefix="mnemo-before-turn-") as tmp:
        root = Path(tmp)
        prepared = prepare(conversation, root, embedder, load_ontology(), RecallSettings())
        config = MnemoConfig(data_dir=root / "data", namespaces={
            "locomo": NamespaceConfig(sources=(SourceConfig(kind="locomo", path=root / "source"),))})
        client = MemoryClient("locomo", config, embedder=embedder)
        mark_interaction(client, dt.datetime(2023, 6, 1, tzinfo=dt.UTC))
        before_turn("locomo", [{"role": "user", "content": "warm up"}], NOW, client=client, token_budget=budget)
        seconds, sizes, recall_only = [], [], []
        for question in prepared.questions:
            start = time.perf_counter()
            client.recall(question.text, k=8, mode="eager")
            recall_only.append(time.perf_counter() - start)
            start = time.perf_counter()
            context = before_turn("locomo", [{"role": "user", "content": question.text}], NOW, client=client, token_budget=budget)
            seconds.append(time.perf_counter() - start)
            sizes.append(tokens(context))
        print(f"eager recall alone ms: {_percentiles(recall_only)}")
        return seconds, sizes


def _percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered) * 1000:.1f}  p95 {p95 * 1000:.1f}  max {ordered[-1] * 1000:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--conversations", type=int, default=1)
    parser.add_argument("--budget", type=int, default=800)
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    seconds: list[float] = []
    sizes: list[int] = []
    for conversation in load_conversations(args.file)[: args.conversations]:
        s, z = measure(conversation, embedder, args.budget)
        seconds += s
        sizes += z
    print(f"before_turn on {args.file.name} ({args.conversations} conversation(s), {len(seconds)} turns, budget {args.budget} tokens)")
    print(f"before_turn latency ms: {_percentiles(seconds)}")
    print(f"context tokens: mean {statistics.mean(sizes):.0f}  max {max(sizes)}")


if __name__ == "__main__":
    main()
