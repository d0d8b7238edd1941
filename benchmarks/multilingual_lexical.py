"""The full-text side of recall on notes in another language: the chunks' full-text index with
the notes' language's stemmer, and the BM25 weight, chosen by leave-one-question-out.

Usage: .venv/bin/python -m benchmarks.multilingual_lexical [--vault DIR] [--qa FILE] [--work DIR]
           [--language Spanish] [--bm25-weights 2.5 5 10] [--json OUT]

The vault is ingested once with MiniLM (kept under `--work`); each question is asked by eager
recall with the index as ingest builds it (English stemmer) and rebuilt with `--language`'s, at
every BM25 weight (`Ranking.bm25_weight`; 2.5 is the shipped one) and every factor on it for
questions MiniLM cannot read (`Ranking.unread_query_bm25_factor`; 1 is none). Per index, the
cross-validated figure takes for each question the pair of values that did best on the others.
"""

import argparse
import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.fitting.notes_cv import cross_language
from benchmarks.multilingual_pair import QA, VAULT, left_out, note_figures, rank_of
from mnemo.eval.notes import DEPTH, NoteIndex, NoteQuestion, Vault, distinct_notes, ingest_vault, load_questions
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import MiniLMEmbedder
from ontology import load_ontology


def ingested_with_bm25(vault: Path, root: Path, scratch: Path,
                       questions: list[NoteQuestion]) -> tuple[Vault, dict[str, list[int]]]:
    """The vault ingested under `root` as `mnemo eval notes` ingests it (MiniLM), and the rank of
    each question's note by BM25 over whole notes (its index under `scratch`)."""
    start = time.perf_counter()
    ingested = ingest_vault(vault, "obsidian", root, MiniLMEmbedder(), load_ontology(), RecallSettings())
    print(f"ingested in {time.perf_counter() - start:.0f} s", flush=True)
    notes = NoteIndex(ingested.pipeline.files, scratch / "bm25")
    return ingested, {"bm25": [rank_of(notes.search(q.text, DEPTH), q.gold) for q in questions]}


def ask(vault: Path, qa: Path, work: Path | None, language: str, weights: list[float],
        factors: list[float]) -> dict[str, Any]:
    questions = load_questions(qa)
    with tempfile.TemporaryDirectory(prefix="mnemo-lexical-") as tmp:
        ingested, ranks = ingested_with_bm25(vault, work or Path(tmp), Path(tmp), questions)
        engine, shipped = ingested.engine, ingested.engine.settings
        for stemmer in ("English", language):
            ingested.pipeline.vectors.stem_text_as(stemmer)
            for weight in weights:
                for factor in factors:
                    engine.settings = replace(shipped, ranking=replace(
                        shipped.ranking, bm25_weight=weight, unread_query_bm25_factor=factor))
                    label = f"{weight:g} {stemmer} ×{factor:g}"
                    ranks[label] = [rank_of(distinct_notes(engine.recall(q.text, k=DEPTH, mode="eager")), q.gold)
                                    for q in questions]
                    print(f"{label}: {note_figures(ranks[label])}", flush=True)
    return {"questions": [q.id for q in questions], "ranks": ranks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--language", default="Spanish")
    parser.add_argument("--bm25-weights", type=float, nargs="+", default=[2.5, 5.0, 10.0])
    parser.add_argument("--factors", type=float, nargs="+", default=[1.0, 2.0, 4.0],
                        help="Ranking.unread_query_bm25_factor values (BM25 × this for a query MiniLM cannot read)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    asked = ask(args.vault, args.qa, args.work, args.language, args.bm25_weights, args.factors)
    ranks = dict(asked["ranks"])
    for stemmer in dict.fromkeys(("English", args.language)):
        grid = [s for s in asked["ranks"] if f" {stemmer} " in s]
        ranks[f"leave-one-out {stemmer}"], _ = left_out({s: asked["ranks"][s] for s in grid}, grid)
    cross = cross_language([args.qa])
    parts = {"all": [True] * len(asked["questions"]), "cross": [cross[q] for q in asked["questions"]]}
    parts["same"] = [not c for c in parts["cross"]]
    figures = {system: {part: note_figures([r for r, keep in zip(values, mask) if keep]) for part, mask in parts.items()}
               for system, values in ranks.items()}
    for system, by_part in figures.items():
        print(f"{system:<24} " + "  ".join(f"{p} {f['hit@5']:.3f}/{f['MRR']:.3f} ({f['questions']})"
                                          for p, f in by_part.items()))
    if args.json:
        args.json.write_text(json.dumps({**asked, "figures": figures}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
