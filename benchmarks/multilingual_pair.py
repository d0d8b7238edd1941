"""The e5 share of the paired embedder (`mnemo.stores.paired`), chosen by leave-one-question-out.

Usage: .venv/bin/python -m benchmarks.multilingual_pair [--vault DIR] [--qa FILE] [--shares 0.3 0.5 ...]
           [--work DIR] [--fts-language Spanish] [--json OUT]

The vault is ingested once with `minilm+e5` (the query side alone carries the share, so one
ingest serves every share); each question is asked by eager recall at every share, and BM25
over whole notes (English stemmer, as `mnemo eval notes` scores it) in the same run. The
cross-validated figure: for each question, the share that did best on the other questions
(hit@5, then MRR, then the share nearest the middle) answers it. `--work DIR` keeps the ingested
namespace there (a later run re-reads it); `--fts-language` asks every share again with the
chunks' full-text index rebuilt with that language's stemmer (LanceDB's names).
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


def ask(vault: Path, qa: Path, shares: list[float], work: Path | None, fts_language: str | None) -> dict[str, Any]:
    questions = load_questions(qa)
    embedder = PairedEmbedder()
    with tempfile.TemporaryDirectory(prefix="mnemo-pair-") as tmp:
        root = work or Path(tmp)
        start = time.perf_counter()
        ingested = ingest_vault(vault, "obsidian", root, embedder, load_ontology(), RecallSettings())
        print(f"ingested in {time.perf_counter() - start:.0f} s", flush=True)
        index = NoteIndex(ingested.pipeline.files, root / "bm25")
        ranks = {"bm25": [rank_of(index.search(q.text, DEPTH), q.gold) for q in questions]}
        languages: list[str | None] = [None] if fts_language is None else [None, fts_language]
        for language in languages:
            if language is not None:
                ingested.pipeline.vectors.stem_text_as(language)
            for share in shares:
                embedder.e5_share = share
                label = f"{share:g}" + (f" {language}" if language else "")
                ranks[label] = [rank_of(distinct_notes(ingested.engine.recall(q.text, k=DEPTH, mode="eager")), q.gold)
                                for q in questions]
                print(f"share {label}: {note_figures(ranks[label])}", flush=True)
    return {"questions": [q.id for q in questions], "ranks": ranks}


def share_of(label: str) -> float:
    return float(label.partition(" ")[0])


def quality(ranks: list[int]) -> tuple[float, float]:
    figures = note_figures(ranks)
    return figures["hit@5"], figures["MRR"]


def left_out(ranks: dict[str, list[int]], shares: list[str]) -> tuple[list[int], list[str]]:
    """Each question's rank at the share the other questions chose, and that share."""
    chosen, out = [], []
    for n in range(len(next(iter(ranks.values())))):
        best = max(shares, key=lambda s: (*quality(ranks[s][:n] + ranks[s][n + 1:]), -abs(share_of(s) - 0.5)))
        chosen.append(best)
        out.append(ranks[best][n])
    return out, chosen


def report(asked: dict[str, Any], cross: dict[str, bool]) -> dict[str, Any]:
    ranks, chosen = dict(asked["ranks"]), {}
    for suffix in dict.fromkeys(s.partition(" ")[2] for s in asked["ranks"] if s != "bm25"):
        shares = [s for s in asked["ranks"] if s != "bm25" and s.partition(" ")[2] == suffix]
        label = "leave-one-out" + (f" {suffix}" if suffix else "")
        ranks[label], chosen[label] = left_out({s: asked["ranks"][s] for s in shares}, shares)
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
    parser.add_argument("--work", type=Path, default=None, help="keep the ingested namespace here")
    parser.add_argument("--fts-language", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = report(ask(args.vault, args.qa, args.shares, args.work, args.fts_language), cross_language([args.qa]))
    show(result, args.json)


def show(result: dict[str, Any], path: Path | None, width: int = 14) -> None:
    """Each system's hit@5 / MRR per part of the questions; all of it as JSON to `path` when given."""
    for system, parts in result["figures"].items():
        print(f"{system:<{width}} " + "  ".join(f"{p} {f['hit@5']:.3f}/{f['MRR']:.3f} ({f['questions']})"
                                               for p, f in parts.items()))
    if path:
        path.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
