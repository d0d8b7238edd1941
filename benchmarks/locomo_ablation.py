"""Which recall signals help on LoCoMo: ingest each conversation once, then score recall
settings side by side (turn-level evidence recall@k, categories 1-4).

Usage: .venv/bin/python benchmarks/locomo_ablation.py [FILE] [--only 0,2] [--keep DIR] ['{"pool": 20}' ...]
Each JSON argument is a set of RecallSettings overrides; with none, a standard ablation runs.
`--only` scores a subset of the conversations (by index: iterate on some, confirm on the
rest); `--keep DIR` keeps the ingested namespaces there, so a later run skips embedding.
"""

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from mnemo.eval.locomo import Scores, ask, load_conversations, prepare, summarize  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import MiniLMEmbedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo" / "locomo_dev.json"
STANDARD: list[dict[str, Any]] = [
    {},
    {"fusion": "rrf", "pool": 20},
    {"second_neighbour_cosine_weight": 0},
    {"session_weight": 0},
    {"neighbour_cosine_weight": 0, "neighbour_bm25_weight": 0, "second_neighbour_cosine_weight": 0},
    {"speaker_bonus": 0},
]


def run(path: Path, root: Path, variants: list[dict], only: set[int] | None) -> None:
    embedder, ontology = MiniLMEmbedder(), load_ontology()
    scores = [Scores((5, 10, 20)) for _ in variants]
    for index, conversation in enumerate(load_conversations(path)):
        if only is not None and index not in only:
            continue
        prepared = prepare(conversation, root / str(index), embedder, ontology, RecallSettings())
        for overrides, score in zip(variants, scores):
            prepared.engine.settings = RecallSettings(random_share=0.0).with_overrides(**overrides)
            ask(prepared, score, ("mnemo",), latency=False)
    for overrides, score in zip(variants, scores):
        figures = summarize(score)["systems"]["mnemo"]
        by_category = {c: row["R@10"] for c, row in figures["by_category"].items()}
        print(json.dumps(overrides), figures["overall"], "R@10 by category", by_category, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("variants", nargs="*", type=json.loads)
    parser.add_argument("--only", type=lambda s: {int(i) for i in s.split(",")}, default=None)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    if args.file.suffix != ".json" and str(args.file).startswith("{"):
        args.variants.insert(0, json.loads(str(args.file)))
        args.file = DEFAULT_FILE
    if args.keep:
        run(args.file, args.keep, args.variants or STANDARD, args.only)
        return
    with tempfile.TemporaryDirectory(prefix="mnemo-ablation-") as tmp:
        run(args.file, Path(tmp), args.variants or STANDARD, args.only)


if __name__ == "__main__":
    main()
