"""Leave-one-conversation-out cross-validation of recall's fitted ranking weights on LoCoMo.

The scored fusion (`recall_rank.scored_fusion`) ranks a query's BM25 and vector hits by a
linear score of seven signals; its weights are a logistic regression over the candidates of
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

from mnemo.eval.locomo import Prepared, Scores, ask, summarize
from mnemo.recall import RecallSettings
from mnemo.recall_rank import Weights, rows_around, scored_fusion
from mnemo.recall_search import HeldChunks, TimeWindow, lexical, semantic

# scored-fusion signal (a `Weights` field) -> the RecallSettings field that weighs it
FITTED = {
    "cosine": "cosine_weight",
    "bm25": "bm25_weight",
    "speaker": "speaker_bonus",
    "neighbour_cosine": "neighbour_cosine_weight",
    "neighbour_bm25": "neighbour_bm25_weight",
    "session": "session_weight",
    "second_neighbour_cosine": "second_neighbour_cosine_weight",
}


@dataclass
class Candidates:
    """One conversation's training rows: a candidate's signals per (question, candidate), and
    whether the candidate is an evidence turn of the question."""

    x: np.ndarray
    y: np.ndarray


def _unit(signal: str, rrf_k: int) -> Weights:
    """Weights that score a candidate by one signal alone."""
    return Weights(**{name: 1.0 if name == signal else 0.0 for name in FITTED}, rrf_k=rrf_k)


def question_features(prepared: Prepared, held: HeldChunks, query: str, settings: RecallSettings) -> dict[str, list[float]]:
    """Candidate id -> its seven signals, for the candidates eager recall's scored fusion ranks."""
    table = prepared.vectors.table("chunks")
    vector = prepared.engine.embedder.encode_query([query])[0]
    lexical_rows = lexical(table, query, settings.pool, TimeWindow(), held)
    semantic_rows = semantic(table, vector, settings.pool, TimeWindow(), held)
    around = rows_around(table, lexical_rows + semantic_rows, 2, held)
    features: dict[str, list[float]] = {}
    for column, signal in enumerate(FITTED):
        for hit in scored_fusion(lexical_rows, semantic_rows, around, vector, query, _unit(signal, settings.rrf_k)):
            features.setdefault(hit.row["id"], [0.0] * len(FITTED))[column] = hit.score
    return features


def candidates(prepared: Prepared, settings: RecallSettings) -> Candidates:
    """The training rows of one conversation."""
    held = HeldChunks(prepared.vectors.table("chunks"))
    rows: list[list[float]] = []
    labels: list[int] = []
    for question in prepared.questions:
        evidence = set(question.evidence)
        for chunk_id, signals in question_features(prepared, held, question.text, settings).items():
            rows.append(signals)
            labels.append(int(prepared.dia_of.get(chunk_id, "") in evidence))
    return Candidates(np.asarray(rows, dtype=np.float64).reshape(-1, len(FITTED)), np.asarray(labels, dtype=np.int8))


def fit_weights(parts: list[Candidates]) -> dict[str, float]:
    """RecallSettings weights from a logistic regression (unregularized) over the candidates of
    the given conversations, to three significant digits."""
    from sklearn.linear_model import LogisticRegression

    x = np.concatenate([p.x for p in parts])
    y = np.concatenate([p.y for p in parts])
    model = LogisticRegression(C=np.inf, max_iter=5000).fit(x, y)
    return {field: float(f"{coef:.3g}") for field, coef in zip(FITTED.values(), model.coef_[0])}


def folds(n: int) -> list[tuple[list[int], int]]:
    """Leave one out: (the indexes to fit on, the index to score) for each of n conversations."""
    return [([i for i in range(n) if i != held], held) for held in range(n)]


def score_with(prepared: Prepared, settings: RecallSettings, scores: Scores) -> None:
    """Ask every question of the conversation through eager recall with these settings."""
    prepared.engine.settings = replace(settings, random_share=0.0)
    ask(prepared, scores, ("mnemo",), latency=False)


def ask_dense(prepared: Prepared, scores: Scores) -> None:
    """Dense retrieval alone: the k nearest turns to the query's vector, recorded as `dense`."""
    table = prepared.vectors.table("chunks")
    for question in prepared.questions:
        vector = prepared.engine.embedder.encode_query([question.text])[0]
        rows = semantic(table, vector, max(scores.ks), TimeWindow())
        retrieved = [d for d in (prepared.dia_of.get(r["id"], "") for r in rows) if d]
        scores.add("dense", question.category, retrieved, list(question.evidence))


def cross_validate(
    prepared: list[Prepared], base: RecallSettings, ks: tuple[int, ...] = (5, 10, 20),
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The whole protocol over ingested conversations (see the module's docstring)."""
    say = progress or (lambda _message: None)
    training = [candidates(p, base) for p in prepared]
    say(f"candidates: {sum(len(t.y) for t in training)} rows, {int(sum(t.y.sum() for t in training))} evidence")
    held_out, fold_reports = Scores(ks), []
    for fit_on, held in folds(len(prepared)):
        weights = fit_weights([training[i] for i in fit_on])
        fold_scores = Scores(ks)
        score_with(prepared[held], replace(base, **weights), fold_scores)
        _merge(held_out, fold_scores)
        fold_reports.append({"held_out": prepared[held].sample_id, "fitted_on": [prepared[i].sample_id for i in fit_on],
                             "weights": weights, "R@10": summarize(fold_scores)["systems"]["mnemo"]["overall"].get("R@10")})
        say(f"fold {held + 1}: held out {prepared[held].sample_id}, weights {weights}")
    all_weights = fit_weights(training)
    in_sample, shipped, baselines = Scores(ks), Scores(ks), Scores(ks)
    for p in prepared:
        score_with(p, replace(base, **all_weights), in_sample)
        score_with(p, base, shipped)
        ask(p, baselines, ("bm25", "hybrid"), latency=False)
        ask_dense(p, baselines)
    return {
        "cross_validated": summarize(held_out), "folds": fold_reports,
        "in_sample": summarize(in_sample), "weights_fitted_on_all": all_weights,
        "shipped": summarize(shipped), "shipped_weights": {f: getattr(base, f) for f in FITTED.values()},
        "baselines": summarize(baselines),
    }


def _merge(into: Scores, scores: Scores) -> None:
    for system, per_k in scores.values.items():
        target = into.values.setdefault(system, {k: [] for k in into.ks})
        for k, values in per_k.items():
            target[k].extend(values)
    for mode, values in scores.latency.items():
        into.latency.setdefault(mode, []).extend(values)
