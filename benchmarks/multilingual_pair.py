"""The e5 share of the paired embedder (`mnemo.stores.paired`), chosen by leave-one-question-out.

Usage: .venv/bin/python -m benchmarks.multilingual_pair [--vault DIR] [--qa FILE] [--shares 0.3 0.5 ...] [--json OUT]

The vault is ingested once with `minilm+e5` (the query side alone carries the share, so one
ingest serves every share); each question is asked by eager recall at every share, and BM25
over whole notes (English stemmer, as `mnemo eval notes` scores it) in the same run. The
cross-validated figure: for each question, the share that did best on the other questions
(hit@5, then MRR, then the share nearest the middle) answers it.
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.fitting.notes_cv import cross_language, note_figures  # noqa: E402
from mnemo.eval.notes import DEPTH, NoteIndex, distinct_notes, ingest_vault, load_questions  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.paired import PairedEmbedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QA = REPO / "tests" / "data" / "notes_qa" / "multilingual.jsonl"
VAULT = REPO.parent / "shared" / "corpora" / "obsidian-antoniolandin-es"


def rank_of(notes: list[str], gold: tuple[str, ...]) -> int:
    return next((n for n, path in enumerate(notes, 1) if path in gold), 0)


def ask(vault: Path, qa: Path, shares: list[float]) -> dict[str, Any]:
    questions = load_questions(qa)
    embedder = PairedEmbedder()
    with tempfile.TemporaryDirectory(prefix="mnemo-pair-") as tmp:
        start = time.perf_counter()
        ingested = ingest_vault(vault, "obsidian", Path(tmp), embedder, load_ontology(), RecallSettings())
        print(f"ingested in {time.perf_counter() - start:.0f} s", flush=True)
        ranks: dict[str, list[int]] = {}
        index = NoteIndex(ingested.pipeline.files, Path(tmp) / "bm25")
        ranks["bm25"] = [rank_of(index.search(q.text, DEPTH), q.gold) for q in questions]
        for share in shares:
            embedder.e5_share = share
            ranks[f"{share:g}"] = [rank_of(distinct_notes(ingested.engine.recall(q.text, k=DEPTH, mode="eager")),
                                           q.gold) for q in questions]
            print(f"share {share:g}: {note_figures(ranks[f'{share:g}'])}", flush=True)
    return {"questions": [q.id for q in questions], "ranks": ranks}


def quality(ranks: list[int]) -> tuple[float, float]:
    figures = note_figures(ranks)
    return figures["hit@5"], figures["MRR"]


def left_out(ranks: dict[str, list[int]], shares: list[str]) -> tuple[list[int], list[str]]:
    """Each question's rank at the share the other questions chose, and that share."""
    chosen, out = [], []
    for n in range(len(next(iter(ranks.values())))):
        best = max(shares, key=lambda s: (*quality(ranks[s][:n] + ranks[s][n + 1:]), -abs(float(s) - 0.5)))
        chosen.append(best)
        out.append(ranks[best][n])
    return out, chosen


def report(asked: dict[str, Any], cross: dict[str, bool]) -> dict[str, Any]:
    shares = [s for s in asked["ranks"] if s != "bm25"]
    ranks = dict(asked["ranks"])
    ranks["leave-one-out"], chosen = left_out(asked["ranks"], shares)
    parts = {"all": [True] * len(asked["questions"]), "cross": [cross[q] for q in asked["questions"]]}
    parts["same"] = [not c for c in parts["cross"]]
    return {**asked, "chosen": chosen, "figures": {system: {
        part: note_figures([r for r, keep in zip(values, mask) if keep]) for part, mask in parts.items()}
        for system, values in ranks.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--shares", type=float, nargs="+", default=[0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = report(ask(args.vault, args.qa, args.shares), cross_language([args.qa]))
    for system, parts in result["figures"].items():
        print(f"{system:<14} " + "  ".join(f"{p} {f['hit@5']:.3f}/{f['MRR']:.3f} ({f['questions']})"
                                          for p, f in parts.items()))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
