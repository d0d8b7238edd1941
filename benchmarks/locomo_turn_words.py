"""LoCoMo categories 1 and 3: candidate features and candidate sources, held out, in one run.

Usage: .venv/bin/python -m benchmarks.locomo_turn_words [FILE] [--cache DIR] [--out DIR] [--seeds 3]

Ingests each dev conversation once (under `--cache DIR` a later run ingests only what changed),
asks BM25, the plain hybrid and the shipped recall for the baselines, then collects every
question's candidates with the learned ranking's features and those of
`benchmarks/fitting/turn_words.py`, for three candidate sets: the first round's, with 20 of the
named person's turns by vector and 10 by class phrase added, and with 20 + 10 more by word-level
cosine. Each variant (a set of feature columns) is fitted leave-one-conversation-out by the
learned ranking's LambdaRank parameters (the mean of `--seeds` models) and scored on the held-out
conversation's candidate order (recall@10 of the candidates, before recall's later steps).
Writes `OUT/locomo_turn_words-<date>.json` and `.md`.
"""

import argparse
import json
import os
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.fitting import fitting_library  # noqa: E402
from benchmarks.fitting.ranker_fit import PARAMS  # noqa: E402
from benchmarks.fitting.turn_words import NAMES, Rows, Sources, WordVectors, collect, held_out  # noqa: E402
from benchmarks.locomo_cv_ablation import DEFAULT_FILE, RESULTS  # noqa: E402
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.eval.locomo import Scores, ask, load_conversations, prepare, summarize  # noqa: E402
from mnemo.recall.learned import FEATURES  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

BASE = list(range(len(FEATURES)))
TURN_FORM = ("shares_image", "asks", "first_person", "event_verb", "thanks_start")
WORDS = ("word_class_max", "word_query_max", "word_query_top2")
SOURCES = {
    "first round": Sources(),
    "+ 20 by vector, 10 by class phrase": Sources(20, 10),
    "+ those, 20 + 10 by word-level cosine": Sources(20, 10, 20),
}


def _columns(*names: str) -> list[int]:
    return BASE + [NAMES.index(n) for n in names]


VARIANTS = {
    "first round": {
        "learned ranking (its 19 features)": BASE,
        "+ speaker rank, other speaker names the person, list question":
            _columns("speaker_rank", "other_names", "list_question"),
        "+ five turn-form flags": _columns(*TURN_FORM),
        "+ word-level cosines": _columns(*WORDS),
    },
    "+ 20 by vector, 10 by class phrase": {
        "learned ranking (its 19 features)": BASE,
        "+ speaker rank, added, class speaker rank": _columns("speaker_rank", "from_added", "class_speaker_rank"),
        "+ word-level cosines": _columns(*WORDS),
    },
    "+ those, 20 + 10 by word-level cosine": {
        "learned ranking (its 19 features)": BASE,
        "+ word-level cosines": _columns(*WORDS),
    },
}


def fitter(seeds: int) -> Any:
    lightgbm = fitting_library("lightgbm")

    def fit(x: Any, y: Any, groups: Any) -> list[Any]:
        return [lightgbm.LGBMRanker(**PARAMS, random_state=s).fit(x, y, group=groups) for s in range(seeds)]

    return fit


def run(path: Path, root: Path, seeds: int) -> dict[str, Any]:
    embedder, ontology = build_embedder(EmbedderConfig(kind="minilm")), load_ontology()
    prepared = [prepare(c, root / "minilm" / str(i), embedder, ontology, RecallSettings())
                for i, c in enumerate(load_conversations(path))]
    baselines = Scores((5, 10, 20))
    for p in prepared:
        ask(p, baselines, ("mnemo", "bm25", "hybrid"), latency=False)
    words, rows = WordVectors(), []
    for label, sources in SOURCES.items():
        parts = [collect(p, embedder, words, sources) for p in prepared]
        coverage = _coverage(parts)
        for name, columns in VARIANTS[label].items():
            rows.append({"candidates": label, "variant": name, "coverage": coverage,
                         **held_out(parts, columns, fitter(seeds))})
            print(json.dumps(rows[-1]), flush=True)
    return {"file": str(path), "seeds": seeds, "variants": rows, "baselines": summarize(baselines)}


def _coverage(parts: list[Rows]) -> dict[str, list[int]]:
    """Per category 1 and 3: the evidence turns among the candidates, and all evidence turns."""
    out = {"1": [0, 0], "3": [0, 0]}
    for p in parts:
        found = np.bincount(p.question, weights=p.y, minlength=len(p.evidence)).astype(int)
        for category, cell in out.items():
            asked = p.category == int(category)
            cell[0] += int(np.minimum(found[asked], p.evidence[asked]).sum())
            cell[1] += int(p.evidence[asked].sum())
    return out


def table(report: dict[str, Any]) -> list[str]:
    lines = [f"## LoCoMo categories 1 and 3: candidate features, held out, {date.today().isoformat()}", "",
             "Candidate order of trees fitted on four conversations, scored on the fifth (recall@10 over evidence "
             f"turns, mean of {report['seeds']} models); evidence among the candidates as found / all.", "",
             "| candidates | variant | R@10 | cat 1 | cat 2 | cat 3 | cat 4 | cat 1 / cat 3 evidence among candidates |",
             "|---|---|---|---|---|---|---|---|"]
    for r in report["variants"]:
        cats = " | ".join(f"{r['by_category'][c]:.3f}" for c in ("1", "2", "3", "4"))
        cover = " / ".join(f"{a}/{b}" for a, b in r["coverage"].values())
        lines.append(f"| {r['candidates']} | {r['variant']} | {r['R@10']:.3f} | {cats} | {cover} |")
    for system, label in (("mnemo", "shipped ranking, in-sample"), ("bm25", "BM25"), ("hybrid", "plain hybrid")):
        figures = report["baselines"]["systems"][system]
        cats = " | ".join(f"{figures['by_category'][c]['R@10']:.3f}" for c in ("1", "2", "3", "4"))
        lines.append(f"| recall | {label} | {figures['overall']['R@10']:.3f} | {cats} | |")
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--cache", type=Path, help="keep the ingested conversations here and reuse them")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemo-locomo-turn-words-") as tmp:
        report = run(args.file, args.cache or Path(tmp), args.seeds)
    lines = table(report)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"locomo_turn_words-{date.today().isoformat()}"
    stem.with_suffix(".json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    stem.with_suffix(".md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
