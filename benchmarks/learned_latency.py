"""Recall latency at about 10k chat turns, the learned ranking against the scored fusion, in one run.

Usage: .venv/bin/python -m benchmarks.learned_latency [FILE] [--copies 4] [--embedder minilm]

The conversations of FILE (default: the LoCoMo dev split in ../shared/corpora/locomo) are
written COPIES times under different sample ids into one LoCoMo file in a temporary folder and
ingested into one namespace (about 2,900 turns per copy), so that every query's hits are chat
turns and the learned ranking runs on each. Every question of categories 1-4 is then asked
eagerly and deliberately, once with each fusion, alternating per question; prints p50/p95/p99
per mode and fusion and the load average.
"""

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from mnemo.config import EmbedderConfig, MnemoConfig, NamespaceConfig, SourceConfig  # noqa: E402
from mnemo.eval.locomo import load_conversations, questions_of  # noqa: E402
from mnemo.pipelines.ingest import IngestPipeline  # noqa: E402
from mnemo.recall.engine import RecallEngine  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo" / "locomo_dev.json"


def _percentiles(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    at = [ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 for share in (0.5, 0.95, 0.99)]
    return f"p50 {at[0]:.1f} / p95 {at[1]:.1f} / p99 {at[2]:.1f} ms (mean {1000 * statistics.fmean(seconds):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    conversations = load_conversations(args.file)
    copies = [{"sample_id": f"{c['sample_id']}-{n}", "conversation": c["conversation"]}
              for n in range(args.copies) for c in conversations]
    embedder, ontology = build_embedder(EmbedderConfig(kind=args.embedder)), load_ontology()
    with tempfile.TemporaryDirectory(prefix="mnemo-learned-latency-") as tmp:
        source = Path(tmp) / "source"
        source.mkdir()
        (source / "conversations.json").write_text(json.dumps(copies), encoding="utf-8")
        config = MnemoConfig(data_dir=Path(tmp) / "data", namespaces={
            "chats": NamespaceConfig(sources=(SourceConfig(kind="locomo", path=source),))})
        pipeline = IngestPipeline.of(config, "chats", ontology, embedder)
        files, vectors, graph = pipeline.files, pipeline.vectors, pipeline.graph
        start = time.perf_counter()
        pipeline.run()
        turns = vectors.count("chunks")
        print(f"{turns} chat turns ingested in {time.perf_counter() - start:.1f} s", flush=True)
        questions = [q.text for c in conversations for q in questions_of(c)]
        engines = {fusion: RecallEngine(files.root, vectors, graph, embedder,
                                        RecallSettings(random_share=0.0).with_overrides(fusion=fusion), seed=0)
                   for fusion in ("learned", "scored")}
        for engine in engines.values():  # warm: model loads, held rows, caches
            engine.recall(questions[0], k=10)
        seconds: dict[tuple[str, str], list[float]] = {}
        for question in questions:
            for mode in ("eager", "deliberate"):
                for fusion, engine in engines.items():
                    began = time.perf_counter()
                    engine.recall(question, k=10, mode=mode)
                    seconds.setdefault((mode, fusion), []).append(time.perf_counter() - began)
        load = os.getloadavg()[0]
        for (mode, fusion), values in sorted(seconds.items()):
            print(f"{turns} turns, {mode} recall, {fusion}: {_percentiles(values)}, {len(values)} questions")
        print(f"load average {load:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
