"""What the note cards are made of, and how a question asks them, measured from one ingest.

Usage: .venv/bin/python -m benchmarks.multilingual_card_variants --work DIR [--vault DIR] [--qa FILE]
           [--only VARIANT ...] [--sweep VARIANT ...] [--json OUT]

The vault is ingested once as `mnemo eval notes` ingests it (kept under `--work`). Every card
variant's texts are embedded by e5 once (cached under `--work`/card-variants); each question's
nearest notes by each variant are then handed to eager recall in place of the stored cards, at
the shipped card weight and decay, so the figures differ from recall's only in the cards
(`--sweep`: also at several numbers of card notes, weights and decays). `alone`: the order of the
cards' first five notes by itself. Results: benchmarks/results/multilingual-card-variants-2026-11-29.md.
"""

import argparse
import hashlib
import json
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.fitting.notes_cv import cross_language, note_figures
from benchmarks.multilingual_lexical import ingested_with_bm25
from benchmarks.multilingual_pair import QA, VAULT, rank_of
from mnemo.documents import Document
from mnemo.eval.notes import DEPTH, distinct_notes, load_questions
from mnemo.recall import note_cards
from mnemo.stores.e5 import E5Embedder

Cards = list[tuple[str, str]]  # (doc id, text), one per card
_SPACE = re.compile(r"\s+")


def opening(doc: Document, chars: int) -> str:
    body = note_cards._LINK.sub(lambda m: m.group(2) or m.group(1), doc.body)
    return _SPACE.sub(" ", note_cards._MARKUP.sub(" ", body)).strip()[:chars]


_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)


def clean_opening(doc: Document, chars: int) -> str:
    """The opening words with formulas dropped and the heading that repeats the note's name."""
    body = _MATH.sub(" ", note_cards._LINK.sub(lambda m: m.group(2) or m.group(1), doc.body))
    lines = [ln for ln in body.splitlines() if not (ln.startswith("# ") and ln[2:].strip() in note_cards.note_names(doc))]
    return _SPACE.sub(" ", note_cards._MARKUP.sub(" ", "\n".join(lines))).strip()[:chars]


def variants(docs: list[Document], chunks: list[dict[str, Any]]) -> dict[str, Cards]:
    notes = [d for d in docs if d.path.endswith(".md")]
    linked = note_cards.linked_names(notes)
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in chunks:
        by_doc[c["doc_id"]].append(c)
    passages: Cards = []
    for d in notes:
        for c in sorted(by_doc.get(d.id, []), key=lambda c: c["position"])[1:]:
            passages.append((d.id, f"{'; '.join(note_cards.note_names(d))}. {c['heading'] or ''} {_SPACE.sub(' ', c['text'])[:300]}"))
    return {
        "base": [(d.id, note_cards.card_text(d)) for d in notes],
        "names": [(d.id, "; ".join(note_cards.note_names(d))) for d in notes],
        "names+links": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {', '.join(linked.get(d.id, [])[:12])}") for d in notes],
        "base+links": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {opening(d, 300)} {', '.join(linked.get(d.id, [])[:8])}")
                       for d in notes],
        "base400+links": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {opening(d, 400)} {', '.join(linked.get(d.id, [])[:8])}")
                          for d in notes],
        "base+links16": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {opening(d, 300)} {', '.join(linked.get(d.id, [])[:16])}")
                         for d in notes],
        "base200+links": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {opening(d, 200)} {', '.join(linked.get(d.id, [])[:8])}")
                          for d in notes],
        "clean400": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {clean_opening(d, 400)}") for d in notes],
        "clean800": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {clean_opening(d, 800)}") for d in notes],
        "clean300+links": [(d.id, f"{'; '.join(note_cards.note_names(d))}. {clean_opening(d, 300)} {', '.join(linked.get(d.id, [])[:8])}")
                           for d in notes],
        "passages": passages,
    }


def embedded(cards: Cards, work: Path, encoder: E5Embedder) -> np.ndarray:
    key = hashlib.sha256("\n\x00".join(t for _, t in cards).encode()).hexdigest()[:16]
    path = work / "card-variants" / f"{key}.npy"
    if path.exists():
        return np.load(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    vectors = encoder.encode([t for _, t in cards])
    np.save(path, vectors)
    return vectors


def note_scores(cards: Cards, vectors: np.ndarray, query: np.ndarray) -> dict[str, float]:
    """Each note's best card's cosine to the query."""
    scores = vectors @ query
    best: dict[str, float] = {}
    for (doc, _), score in zip(cards, scores.tolist()):
        if score > best.get(doc, -2.0):
            best[doc] = score
    return best


def summed(parts: list[dict[str, float]]) -> dict[str, float]:
    docs = set().union(*parts)
    return {d: sum(p.get(d, min(p.values())) for p in parts) for d in docs}


COMBOS = {"base|passages": ["base", "passages"], "base+links|passages": ["base+links", "passages"],
          "base|base+links": ["base", "base+links"], "base|clean400": ["base", "clean400"],
          "base+links|clean300+links": ["base+links", "clean300+links"],
          "base|names": ["base", "names"]}


class FixedCards:
    """Stands in for recall's `CardReads`: the notes chosen for each question beforehand."""

    def __init__(self, chosen: dict[str, list[str]]) -> None:
        self.chosen = chosen

    def ask(self, query: str, limit: int = note_cards.CARD_NOTES) -> Future[list[str]]:
        done: Future[list[str]] = Future()
        done.set_result(self.chosen[query])
        return done

    def answer(self, asked: Future[list[str]] | None) -> list[str]:
        return asked.result() if asked is not None else []

    def close(self) -> None:
        pass


def fed_back(vectors: np.ndarray, query: np.ndarray, top: int, alpha: float) -> np.ndarray:
    """The query moved toward its `top` nearest cards (Rocchio), as a unit vector."""
    nearest = np.argsort(-(vectors @ query))[:top]
    moved = query + alpha * vectors[nearest].mean(axis=0)
    return moved / np.linalg.norm(moved)


def swept(engine: Any, shipped: Any, questions: list[Any], path_of: dict[str, str],
          per_question: list[dict[str, float]], name: str) -> dict[str, list[int]]:
    ranks: dict[str, list[int]] = {}
    orders = [sorted(s, key=lambda d: -s[d]) for s in per_question]
    for notes in (2, 3, 4, 5, 8):
        engine.cards = FixedCards({q.text: o[:notes] for q, o in zip(questions, orders)})
        for weight in (1.0, 2.0, 3.0):
            for decay in (0.5, 1.0):
                engine.settings = replace(shipped, ranking=replace(shipped.ranking, card_weight=weight,
                                                                   card_decay=decay))
                label = f"{name} n{notes} w{weight:g} d{decay:g}"
                ranks[label] = [rank_of(distinct_notes(engine.recall(q.text, k=DEPTH, mode="eager")), q.gold)
                                for q in questions]
                print(label, note_figures(ranks[label]), flush=True)
    engine.settings = shipped
    return ranks


def card_scores(texts: dict[str, Cards], queries: np.ndarray, work: Path, encoder: E5Embedder,
                pick: Callable[[str], bool]) -> dict[str, list[dict[str, float]]]:
    """Per card variant (and feedback and two-card combination), each question's notes' scores."""
    scores: dict[str, list[dict[str, float]]] = {}
    for name, cards in texts.items():
        if pick(name):
            vectors = embedded(cards, work, encoder)
            scores[name] = [note_scores(cards, vectors, v) for v in queries]
            if name in ("base", "base+links", "clean300+links"):
                for top, alpha in ((3, 0.5), (3, 1.0), (5, 1.0), (1, 0.5)):
                    scores[f"{name} prf{top}x{alpha:g}"] = [
                        note_scores(cards, vectors, fed_back(vectors, v, top, alpha)) for v in queries]
    if "passages" in scores:  # a note's first passage is its base card
        scores["passages"] = [{**b, **{d: max(v, b.get(d, -2.0)) for d, v in p.items()}}
                              for p, b in zip(scores["passages"], scores["base"])]
    for combo, members in COMBOS.items():
        if all(m in scores for m in members):
            scores[combo] = [summed(list(per)) for per in zip(*(scores[m] for m in members))]
    return scores


def ask(vault: Path, qa: Path, work: Path, pick: Callable[[str], bool], sweep: list[str]) -> dict[str, Any]:
    questions = load_questions(qa)
    with tempfile.TemporaryDirectory(prefix="mnemo-card-variants-") as tmp:
        ingested, ranks = ingested_with_bm25(vault, work, Path(tmp), questions)
        engine, shipped = ingested.engine, ingested.engine.settings
        docs = ingested.pipeline.files.read_documents()
        path_of = {d.id: d.path for d in docs}
        chunks = ingested.pipeline.vectors.must_open("chunks").select(["doc_id", "position", "heading", "text"]).to_pylist()
        encoder = E5Embedder(threads=1, engines=2)
        queries = encoder.encode_query([q.text for q in questions])
        engine.settings = replace(shipped, ranking=replace(shipped.ranking, card_weight=0.0))
        ranks["no cards"] = [rank_of(distinct_notes(engine.recall(q.text, k=DEPTH, mode="eager")), q.gold)
                             for q in questions]
        engine.settings = shipped
        scores = card_scores(variants(docs, chunks), queries, work, encoder, pick)
        for name in sweep:
            ranks.update(swept(engine, shipped, questions, path_of, scores[name], name))
        for name, per_question in scores.items():
            orders = [sorted(s, key=lambda d: -s[d])[:note_cards.CARD_NOTES] for s in per_question]
            ranks[f"{name} alone"] = [rank_of([path_of[d] for d in o], q.gold) for o, q in zip(orders, questions)]
            engine.cards = FixedCards({q.text: o for q, o in zip(questions, orders)})  # type: ignore[assignment]
            ranks[name] = [rank_of(distinct_notes(engine.recall(q.text, k=DEPTH, mode="eager")), q.gold)
                           for q in questions]
            print(f"{name}: alone {note_figures(ranks[f'{name} alone'])} recall {note_figures(ranks[name])}",
                  flush=True)
    return {"questions": [q.id for q in questions], "ranks": ranks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=None, help="card variants to measure (all by default)")
    parser.add_argument("--sweep", nargs="*", default=[], help="card variants to ask at several settings")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    asked = ask(args.vault, args.qa, args.work, lambda name: not args.only or name in args.only,
                args.sweep)
    cross = cross_language([args.qa])
    ids = asked["questions"]
    parts = {"all": [True] * len(ids), "odd": [n % 2 == 0 for n in range(len(ids))],
             "even": [n % 2 == 1 for n in range(len(ids))], "cross": [cross[q] for q in ids]}
    for system, values in asked["ranks"].items():
        print(f"{system:<22} " + "  ".join(
            f"{p} {note_figures([r for r, k in zip(values, m) if k])['hit@5']:.3f}/"
            f"{note_figures([r for r, k in zip(values, m) if k])['MRR']:.3f}" for p, m in parts.items()))
    if args.json:
        args.json.write_text(json.dumps(asked, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
