"""The weight of note cards (`mnemo.recall.note_cards`) on notes in another language, fitted on one
half of the questions and reported on the other.

Usage: .venv/bin/python -m benchmarks.multilingual_cards [--vault DIR] [--qa FILE] [--work DIR]
           [--weights 0.5 1 2] [--decays 1 0.5] [--json OUT]

The vault is ingested once as `mnemo eval notes` ingests it (MiniLM; the notes' stemmer; the
cards embedded by e5); `--work DIR` keeps the namespace there, so a later run reads it again.
Each question is asked by eager recall without cards (`Ranking.card_weight` 0: recall as it
was), at every card weight and `card_decay`, and by BM25 over whole notes in the same run. The
setting is fitted on the odd-numbered questions (first, third, ...) and reported on the
even-numbered ones, and the other way round; every figure is also given per half and for the
questions asked in another language than their note's (`cross`) and in the same (`same`).
"""

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.fitting.notes_cv import cross_language, note_figures
from benchmarks.multilingual_lexical import ingested_with_bm25
from benchmarks.multilingual_pair import QA, VAULT, quality, rank_of, show
from mnemo.eval.notes import DEPTH, distinct_notes, load_questions


def ask(vault: Path, qa: Path, work: Path | None, weights: list[float], decays: list[float]) -> dict[str, Any]:
    questions = load_questions(qa)
    with tempfile.TemporaryDirectory(prefix="mnemo-cards-") as tmp:
        ingested, ranks = ingested_with_bm25(vault, work or Path(tmp), Path(tmp), questions)
        engine, shipped = ingested.engine, ingested.engine.settings
        for weight, decay in [(0.0, 1.0)] + [(w, d) for w in weights if w for d in decays]:
            engine.settings = replace(shipped, ranking=replace(shipped.ranking, card_weight=weight, card_decay=decay))
            label = f"{weight:g}" if not weight else f"{weight:g} ÷ place^{decay:g}"
            start = time.perf_counter()
            ranks[label] = [rank_of(distinct_notes(engine.recall(q.text, k=DEPTH, mode="eager")), q.gold)
                            for q in questions]
            took = (time.perf_counter() - start) / len(questions)
            print(f"cards {label}: {note_figures(ranks[label])} ({took * 1000:.0f} ms a question)", flush=True)
    return {"questions": [q.id for q in questions], "ranks": ranks}


def fitted_on(ranks: dict[str, list[int]], fit: list[bool]) -> str:
    """The setting that did best (hit@5, then MRR, then the first listed) on the questions in `fit`."""
    settings = [s for s in ranks if s != "bm25"]
    return max(settings, key=lambda s: (*quality([r for r, f in zip(ranks[s], fit) if f]), -settings.index(s)))


def report(asked: dict[str, Any], cross: dict[str, bool]) -> dict[str, Any]:
    ids, ranks = asked["questions"], dict(asked["ranks"])
    odd = [n % 2 == 0 for n in range(len(ids))]  # the first, third, ... question
    chosen = {"fitted on odd": fitted_on(ranks, odd), "fitted on even": fitted_on(ranks, [not o for o in odd])}
    ranks["held out"] = [ranks[chosen["fitted on even"]][n] if o else ranks[chosen["fitted on odd"]][n]
                         for n, o in enumerate(odd)]
    parts = {"all": [True] * len(ids), "odd": odd, "even": [not o for o in odd],
             "cross": [cross[q] for q in ids], "same": [not cross[q] for q in ids]}
    figures = {system: {part: note_figures([r for r, keep in zip(values, mask) if keep])
                        for part, mask in parts.items()} for system, values in ranks.items()}
    return {**asked, "chosen": chosen, "figures": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--work", type=Path, default=None, help="keep the ingested namespace here")
    parser.add_argument("--weights", type=float, nargs="+", default=[0.25, 0.5, 1.0, 2.0])
    parser.add_argument("--decays", type=float, nargs="+", default=[1.0],
                        help="Ranking.card_decay values: the card at place p gains weight × best ÷ p ** decay")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = report(ask(args.vault, args.qa, args.work, args.weights, args.decays), cross_language([args.qa]))
    print(f"chosen: {result['chosen']}")
    show(result, args.json, 20)


if __name__ == "__main__":
    main()
