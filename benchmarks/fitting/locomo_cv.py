"""Leave-one-conversation-out cross-validation of recall's fitted ranking weights on LoCoMo.

The scored fusion (`fusion.ScoredFusion`) ranks a query's BM25 and vector hits by a
linear score of nine signals; its weights are a logistic regression over the candidates of
the questions (a candidate is positive when it is one of the question's evidence turns). Here
that fit is made five times, each time on four conversations, and the fitted weights are
scored on the fifth, which the fit never saw: the mean over the held-out conversations is
the figure to quote. The fit on all conversations, scored on the same conversations, is
reported beside it and labelled in-sample; so are the shipped defaults and the baselines
(BM25 alone, the plain LanceDB hybrid, dense retrieval alone), all from the same ingest.

Questions, answers and evidence are read by the fit and the scorer only: the candidates are
what recall itself retrieves for the question's text.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from benchmarks.fitting import fitting_library
from benchmarks.fitting.ranker_fit import fit_trees, written
from mnemo.eval.locomo import Prepared, Scores, ask, summarize
from mnemo.recall.learned import FEATURES, features_of
from mnemo.recall.rank import rows_around, signals_of
from mnemo.recall.search import HeldChunks, TimeWindow, lexical, semantic
from mnemo.recall.settings import Mode, RecallSettings
from mnemo.stores.embedders import Embedder
from mnemo.stores.vector_table import VectorTable

# scored-fusion signal (a `Weights` field) -> the RecallSettings field that weighs it
FITTED = {
    "cosine": "cosine_weight",
    "bm25": "bm25_weight",
    "speaker": "speaker_bonus",
    "neighbour_cosine": "neighbour_cosine_weight",
    "neighbour_bm25": "neighbour_bm25_weight",
    "session": "session_weight",
    "second_neighbour_cosine": "second_neighbour_cosine_weight",
    "dated": "dated_weight",
    "dated_when": "dated_when_weight",
}
MOVES = (-1.0, -0.5, 0.0, 0.25, 0.5, 0.8, 1.25, 2.0, 4.0)  # multiples of a weight coordinate ascent tries


@dataclass
class Candidates:
    """One conversation's training rows: a candidate's signals per (question, candidate),
    whether the candidate is an evidence turn of the question, the question's index, and per
    question how many evidence turns it has (retrieved or not)."""

    x: np.ndarray
    y: np.ndarray
    question: np.ndarray
    evidence: np.ndarray
    sample: str = ""


def question_features(
    prepared: Prepared, held: HeldChunks, query: str, settings: RecallSettings
) -> dict[str, list[float]]:
    """Candidate id -> its features (the scored fusion's signals, then the learned ranking's
    others: `recall.learned.FEATURES`), for the candidates eager recall ranks."""
    rows, matrix = ranked_candidates(prepared.pipeline.vectors.must_open("chunks"), prepared.engine.embedder,
                                     held, query, settings)
    return {row["id"]: matrix[n].tolist() for n, row in enumerate(rows)}


def ranked_candidates(table: VectorTable, embedder: Embedder, held: HeldChunks, query: str,
                      settings: RecallSettings) -> tuple[list[dict[str, Any]], np.ndarray]:
    """The candidates eager recall ranks for `query` (its BM25 and vector hits) and their features."""
    vector = embedder.encode_query([query])[0]
    lexical_rows = lexical(table, query, settings.pool, TimeWindow(), held)
    semantic_rows = semantic(table, vector, settings.pool, TimeWindow(), held)
    around = rows_around(table, lexical_rows + semantic_rows, 2, held)
    found = signals_of(lexical_rows, semantic_rows, around, vector, query, settings.ranking.rrf_k)
    return found.rows, features_of(found, vector, query, held)


def candidates(prepared: Prepared, settings: RecallSettings) -> Candidates:
    """The training rows of one conversation."""
    held = HeldChunks(prepared.pipeline.vectors.must_open("chunks"))
    rows: list[list[float]] = []
    labels: list[int] = []
    asked: list[int] = []
    for index, question in enumerate(prepared.questions):
        evidence = set(question.evidence)
        for chunk_id, signals in question_features(prepared, held, question.text, settings).items():
            rows.append(signals)
            labels.append(int(prepared.dia_of.get(chunk_id, "") in evidence))
            asked.append(index)
    return Candidates(np.asarray(rows, dtype=np.float64).reshape(-1, len(FEATURES)), np.asarray(labels, dtype=np.int8),
                      np.asarray(asked, dtype=np.int64), np.asarray([len(q.evidence) for q in prepared.questions]),
                      prepared.sample_id)


def fit_logistic(parts: list[Candidates]) -> dict[str, float]:
    """RecallSettings weights from a logistic regression (unregularized) over the candidates of
    the given conversations, to three significant digits."""
    linear_model = fitting_library("sklearn.linear_model")
    x = np.concatenate([p.x[:, :len(FITTED)] for p in parts])
    y = np.concatenate([p.y for p in parts])
    model = linear_model.LogisticRegression(C=np.inf, max_iter=5000).fit(x, y)
    return {field: float(f"{coef:.3g}") for field, coef in zip(FITTED.values(), model.coef_[0])}


def fused_recall(parts: list[Candidates], weights: np.ndarray, k: int = 10) -> float:
    """Mean recall@k over the questions when each question's candidates are ranked by
    `x @ weights` alone (the scored fusion's order, before dates, pages and the per-note cap)."""
    total, questions = 0.0, 0
    for p in parts:
        order = np.lexsort((-(p.x[:, :len(FITTED)] @ weights), p.question))
        asked = p.question[order]
        top = (np.arange(len(order)) - np.searchsorted(asked, asked)) < k
        found = np.bincount(asked[top], weights=p.y[order][top], minlength=len(p.evidence))
        total += float((found / p.evidence).sum())
        questions += len(p.evidence)
    return total / questions if questions else 0.0


def fit_ranking(parts: list[Candidates], rounds: int = 4) -> dict[str, float]:
    """The logistic fit, then coordinate ascent on the training conversations' recall@10 of the
    fused order: each weight but the cosine's (which sets the scale) is multiplied in turn by
    each factor of MOVES, keeping every move that raises it, until a round keeps none (at most
    `rounds` rounds)."""
    names = list(FITTED.values())
    start = fit_logistic(parts)
    weights = np.asarray([start[n] for n in names])
    best = fused_recall(parts, weights)
    for _ in range(rounds):
        moved = False
        for j in range(1, len(names)):
            for factor in MOVES:
                trial = weights.copy()
                trial[j] = weights[j] * factor
                value = fused_recall(parts, trial)
                if value > best + 1e-9:
                    best, weights, moved = value, trial, True
        if not moved:
            break
    return {n: float(f"{v:.3g}") for n, v in zip(names, weights)}


def fit_learned(parts: list[Candidates]) -> dict[str, Any]:
    """The learned ranking's trees fitted on the training conversations (`ranker_fit`), as
    the settings that make recall use them (the trees written to a temporary file)."""
    questions = np.concatenate([p.question + 100_000 * n for n, p in enumerate(parts)])
    model = fit_trees(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]), questions,
                      [p.sample for p in parts])
    return {"fusion": "learned", "ranker": written(model)}


FITS: dict[str, Callable[[list[Candidates]], dict[str, Any]]] = {
    "logistic": fit_logistic, "ranking": fit_ranking, "learned": fit_learned,
}


def _as_fitted(fit: str, overrides: dict[str, Any]) -> dict[str, Any]:
    """A fit's settings: the linear fits' weights are the scored fusion's."""
    return overrides if fit == "learned" else {"fusion": "scored", **overrides}


def folds(n: int) -> list[tuple[list[int], int]]:
    """Leave one out: (the indexes to fit on, the index to score) for each of n conversations."""
    return [([i for i in range(n) if i != held], held) for held in range(n)]


def score_with(prepared: Prepared, settings: RecallSettings, scores: Scores, mode: Mode = "eager") -> None:
    """Ask every question of the conversation through recall in `mode` with these settings."""
    prepared.engine.settings = replace(settings, random_share=0.0)
    ask(prepared, scores, ("mnemo",), latency=False, mode=mode)


def ask_dense(prepared: Prepared, scores: Scores) -> None:
    """Dense retrieval alone: the k nearest turns to the query's vector, recorded as `dense`."""
    table = prepared.pipeline.vectors.must_open("chunks")
    for question in prepared.questions:
        vector = prepared.engine.embedder.encode_query([question.text])[0]
        rows = semantic(table, vector, max(scores.ks), TimeWindow())
        retrieved = [d for d in (prepared.dia_of.get(r["id"], "") for r in rows) if d]
        scores.add("dense", question.category, retrieved, list(question.evidence))


def _held_out(prepared: list[Prepared], training: list[Candidates], base: RecallSettings, fit: str,
              ks: tuple[int, ...], say: Callable[[str], None]) -> dict[str, Any]:
    """Each conversation scored with the weights one fit method made from the others."""
    held_out, reports = Scores(ks), []
    for fit_on, held in folds(len(prepared)):
        weights = FITS[fit]([training[i] for i in fit_on])
        fold = Scores(ks)
        score_with(prepared[held], base.with_overrides(**_as_fitted(fit, weights)), fold)
        merge_scores(held_out, fold)
        reports.append({"held_out": prepared[held].sample_id, "fitted_on": [prepared[i].sample_id for i in fit_on],
                        "weights": weights, "R@10": summarize(fold)["systems"]["mnemo"]["overall"].get("R@10")})
        say(f"{fit} fold {held + 1}: held out {prepared[held].sample_id}, R@10 {reports[-1]['R@10']}, "
            f"weights {weights}")
    return {"scores": summarize(held_out), "folds": reports}


def cross_validate(
    prepared: list[Prepared], base: RecallSettings, ks: tuple[int, ...] = (5, 10, 20),
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The whole protocol over ingested conversations (see the module's docstring), for each
    fit method: held out, and fitted on all and scored in-sample; the shipped weights and the
    baselines once."""
    say = progress or (lambda _message: None)
    training = [candidates(p, base) for p in prepared]
    say(f"candidates: {sum(len(t.y) for t in training)} rows, {int(sum(t.y.sum() for t in training))} evidence")
    report: dict[str, Any] = {"fits": {}}
    for fit in FITS:
        weights = FITS[fit](training)
        in_sample = Scores(ks)
        for p in prepared:
            score_with(p, base.with_overrides(**_as_fitted(fit, weights)), in_sample)
        report["fits"][fit] = {**_held_out(prepared, training, base, fit, ks, say), "weights_fitted_on_all": weights,
                               "in_sample": summarize(in_sample)}
    shipped, baselines = Scores(ks), Scores(ks)
    for p in prepared:
        score_with(p, base, shipped)
        ask(p, baselines, ("bm25", "hybrid"), latency=False)
        ask_dense(p, baselines)
    shipped_weights = {f: getattr(base.ranking, f) for f in FITTED.values()}
    extra = {"shipped": summarize(shipped), "shipped_weights": shipped_weights, "baselines": summarize(baselines)}
    return report | extra


def merge_scores(into: Scores, scores: Scores) -> None:
    for system, per_k in scores.values.items():
        target = into.values.setdefault(system, {k: [] for k in into.ks})
        for k, values in per_k.items():
            target[k].extend(values)
    for mode, seconds in scores.latency.items():
        into.latency.setdefault(mode, []).extend(seconds)
