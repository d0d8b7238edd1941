"""Which recall signals help on LoCoMo: ingest each conversation once, then score recall
settings side by side (turn-level evidence recall@k, categories 1-4).

Usage: .venv/bin/python benchmarks/locomo_ablation.py [FILE] ['{"pool": 20}' ...]
Each JSON argument is a set of RecallSettings overrides; with none, a standard ablation runs.
"""

import json
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from mnemo.eval.locomo import Scores, ask, load_conversations, prepare, summarize  # noqa: E402
from mnemo.recall import RecallSettings  # noqa: E402
from mnemo.stores.embedders import MiniLMEmbedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo" / "locomo_dev.json"
STANDARD = [
    {"pool": 50, "neighbour_weight": 0.0},
    {"pool": 20, "neighbour_weight": 0.0},
    {"pool": 20, "neighbour_weight": 0.3},
    {"pool": 20, "neighbour_weight": 0.3, "episode_weight": 0.3},
    {"pool": 20, "neighbour_weight": 0.3, "feedback_docs": 3},
]


def main(argv: list[str]) -> None:
    path = Path(argv[1]) if len(argv) > 1 and not argv[1].startswith("{") else DEFAULT_FILE
    variants = [json.loads(a) for a in argv[1:] if a.startswith("{")] or STANDARD
    embedder, ontology = MiniLMEmbedder(), load_ontology()
    scores = [Scores((5, 10, 20)) for _ in variants]
    with tempfile.TemporaryDirectory(prefix="mnemo-ablation-") as tmp:
        for index, conversation in enumerate(load_conversations(path)):
            prepared = prepare(conversation, Path(tmp) / str(index), embedder, ontology, RecallSettings())
            for overrides, score in zip(variants, scores):
                prepared.engine.settings = replace(RecallSettings(), random_share=0.0, **overrides)
                ask(prepared, score, ("mnemo",), latency=False)
    for overrides, score in zip(variants, scores):
        figures = summarize(score)["systems"]["mnemo"]
        by_category = {c: row["R@10"] for c, row in figures["by_category"].items()}
        print(json.dumps(overrides), figures["overall"], "R@10 by category", by_category, flush=True)


if __name__ == "__main__":
    main(sys.argv)
