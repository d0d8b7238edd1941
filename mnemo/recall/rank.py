"""Scored fusion: a query's BM25 and vector hits ranked by one linear score of signals that
each say, in their own way, that a chunk answers the query.

- `cosine`: the chunk's cosine similarity to the query;
- `bm25`: its BM25 score relative to the best BM25 hit of the query (0 when not a hit);
- `speaker`: the chunk is a chat turn said by someone the query names;
- `neighbour_cosine` / `neighbour_bm25`: the best of the same two signals on the turn or
  passage just before or after it (what a turn answers, or what answers it);
- `second_neighbour_cosine`: the better cosine of the turns two before and two after it;
- `dated` / `dated_when`: the chunk states or implies a date (a date written in a turn, or a
  relative one resolved against the day it was said at ingest: `extract.relative_dates`); the
  second only when the query asks when something happened;
- `session`: how well the chunk's document (a chat session, a note) did as a whole: the
  best reciprocal-rank score among its hits.

The weights are RecallSettings fields. Their defaults come from a logistic regression fitted
on the candidates of two of the five LoCoMo dev conversations, rounded (the second-neighbour
weight was chosen on all five; the two dated weights are about the median of the
cross-validation folds' fits, scaled to the shipped cosine weight): their dev figure is
in-sample. What fitting such weights gives on conversations the fit never saw is measured by
leave-one-conversation-out cross-validation (benchmarks/locomo_cv.py, benchmarks/fitting/locomo_cv.py;
docs/EVALUATION.md).
"""

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.documents import normalize_name
from mnemo.recall.search import HeldChunks, rows_by_id, rows_near
from mnemo.recall.settings import Ranking
from mnemo.stores.vector_table import VectorTable

NEIGHBOUR_COLUMNS = ["id", "vector", "prev_id", "next_id", "doc_id", "metadata"]


@dataclass(frozen=True)
class Weights:
    cosine: float
    bm25: float
    speaker: float
    neighbour_cosine: float
    neighbour_bm25: float
    session: float
    second_neighbour_cosine: float = 0.0
    dated: float = 0.0
    dated_when: float = 0.0
    rrf_k: int = 60


def weights_of(r: Ranking) -> Weights:
    """The scored fusion's weights as a ranking sets them."""
    return Weights(r.cosine_weight, r.bm25_weight, r.speaker_bonus, r.neighbour_cosine_weight, r.neighbour_bm25_weight,
                   r.session_weight, r.second_neighbour_cosine_weight, r.dated_weight, r.dated_when_weight, r.rrf_k)


@dataclass(frozen=True)
class Scored:
    row: dict[str, Any]
    score: float
    reasons: tuple[str, ...]


class Pool:
    """Candidates with fused scores and the reasons they were included."""

    def __init__(self, rrf_k: int) -> None:
        self.rrf_k = rrf_k
        self.scores: dict[str, float] = {}
        self.reasons: dict[str, list[str]] = {}
        self.rows: dict[str, dict[str, Any]] = {}

    def add(self, row_id: str, score: float, reason: str, row: dict[str, Any] | None = None) -> None:
        self.scores[row_id] = self.scores.get(row_id, 0.0) + score
        reasons = self.reasons.setdefault(row_id, [])
        if reason not in reasons:
            reasons.append(reason)
        if row is not None:
            self.rows.setdefault(row_id, row)

    def ranked(self, rows: list[dict[str, Any]], weight: float, reason: str) -> None:
        for rank, row in enumerate(rows):
            self.add(row["id"], weight / (self.rrf_k + rank + 1), reason, row)

    def best(self, n: int | None = None) -> list[str]:
        order = sorted(self.scores, key=lambda i: (-self.scores[i], i))
        return order if n is None else order[:n]


def neighbour_ids(rows: list[dict[str, Any]]) -> list[str]:
    """Ids of the turns or passages just before and after the given rows."""
    ids = [i for r in rows for i in (r.get("prev_id"), r.get("next_id")) if i]
    return list(dict.fromkeys(ids))


def rows_around(
    table: VectorTable, hits: list[dict[str, Any]], hops: int, held: HeldChunks | None = None
) -> dict[str, dict[str, Any]]:
    """The turns or passages up to `hops` away from the hits that are not hits themselves,
    with only what scoring reads (id, vector, prev/next ids); from `held` when given, else from
    the rows beside the hits in the table (`rows_near`), and by id for any not found there."""
    known = {r["id"] for r in hits}
    near = rows_near(table, hits, hops, NEIGHBOUR_COLUMNS) if held is None else {}
    found: dict[str, dict[str, Any]] = {}
    frontier = hits
    for _ in range(hops):
        wanted = [i for i in neighbour_ids(frontier) if i not in known]
        if held is not None:
            rows = held.rows(wanted)
        else:
            rows = {i: near[i] for i in wanted if i in near}
            missing = [i for i in wanted if i not in near]
            rows |= rows_by_id(table, missing, NEIGHBOUR_COLUMNS) if missing else {}
        known |= set(rows)
        found |= rows
        frontier = list(rows.values())
    return found


def _second_neighbours(row: dict[str, Any], known: dict[str, dict[str, Any]]) -> list[str]:
    before, after = known.get(row.get("prev_id") or ""), known.get(row.get("next_id") or "")
    return [i for i in ((before or {}).get("prev_id"), (after or {}).get("next_id")) if i]


def said_by_named(row: dict[str, Any], padded_query: str) -> bool:
    """Whether the chunk is a turn by a speaker whose name is a whole word of the query
    (`padded_query` is the normalized query with a space on each side)."""
    speaker = json.loads(row.get("metadata") or "{}").get("speaker")
    return bool(speaker) and f" {normalize_name(speaker)} " in padded_query


_WHEN = re.compile(r"^\W*(when\b|what (day|date|week|month|year|time)\b|which (day|week|month|year)\b|"
                   r"how long ago\b|since when\b)", re.IGNORECASE)


def asks_when(query: str) -> bool:
    """Whether the query asks when something happened ("When did...", "What year...")."""
    return bool(_WHEN.search(query))


def is_dated(row: dict[str, Any]) -> bool:
    """Whether the chunk states or implies a date (its `dates`, resolved at ingest)."""
    return bool(json.loads(row.get("metadata") or "{}").get("dates"))


def _cosines(vector: np.ndarray, rows: dict[str, dict[str, Any]]) -> dict[str, float]:
    if not rows:
        return {}
    ids = list(rows)
    matrix = np.asarray([rows[i]["vector"] for i in ids], dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(vector) or 1.0)
    return dict(zip(ids, (matrix @ vector / np.where(norms > 0, norms, 1.0)).tolist()))


def _session_scores(order: dict[str, list[str]], rows: dict[str, dict[str, Any]], rrf_k: int) -> dict[str, float]:
    """Per document: the best reciprocal-rank score (summed over both lists) of its hits."""
    rrf: dict[str, float] = {}
    for ranked in order.values():
        for rank, row_id in enumerate(ranked):
            rrf[row_id] = rrf.get(row_id, 0.0) + 1.0 / (rrf_k + rank + 1)
    best: dict[str, float] = {}
    for row_id, value in rrf.items():
        doc = rows[row_id].get("doc_id", "")
        best[doc] = max(best.get(doc, 0.0), value)
    return best


SIGNALS = ("cosine", "bm25", "speaker", "neighbour_cosine", "neighbour_bm25", "session", "second_neighbour_cosine",
           "dated", "dated_when")  # the `Weights` fields the linear score weighs, in the order of `Signals.matrix`
COSINE, SPEAKER, DATED = (SIGNALS.index(name) for name in ("cosine", "speaker", "dated"))


@dataclass
class Signals:
    """The hits of a query's two searches (BM25 and vector) with their signals: one row of
    `matrix` per hit (columns in SIGNALS order), its row and the lists it came from."""

    rows: list[dict[str, Any]]
    matrix: np.ndarray
    reasons: list[tuple[str, ...]]
    cosine: dict[str, float]  # the hits' and the turns around them
    known: dict[str, dict[str, Any]]  # the rows of the hits and of the turns around them
    lexical_rank: dict[str, int]
    semantic_rank: dict[str, int]


def signals_of(
    lexical_rows: list[dict[str, Any]], semantic_rows: list[dict[str, Any]], neighbours: dict[str, dict[str, Any]],
    vector: np.ndarray, query: str, rrf_k: int = 60,
) -> Signals:
    """Every BM25 or vector hit with its signals (`neighbours`: rows of the turns around the hits,
    up to two away, that are not hits themselves)."""
    by_id = {r["id"]: r for r in semantic_rows} | {r["id"]: r for r in lexical_rows}
    order = {"lexical": [r["id"] for r in lexical_rows], "semantic": [r["id"] for r in semantic_rows]}
    top = max((float(r.get("_score") or 0.0) for r in lexical_rows), default=0.0) or 1.0
    bm25 = {r["id"]: float(r.get("_score") or 0.0) / top for r in lexical_rows}
    known = by_id | neighbours
    cosine = _cosines(vector, known)
    session = _session_scores(order, by_id, rrf_k)
    padded = f" {normalize_name(query)} "
    when = float(asks_when(query))
    listed = {name: set(ids) for name, ids in order.items()}
    matrix = np.zeros((len(by_id), len(SIGNALS)))
    reasons = []
    for n, (row_id, row) in enumerate(by_id.items()):
        around = [i for i in (row.get("prev_id"), row.get("next_id")) if i]
        dated = float(is_dated(row))
        matrix[n] = (
            cosine[row_id], bm25.get(row_id, 0.0), float(said_by_named(row, padded)),
            max((cosine.get(i, 0.0) for i in around), default=0.0),
            max((bm25.get(i, 0.0) for i in around), default=0.0),
            session.get(row.get("doc_id", ""), 0.0),
            max((cosine.get(i, 0.0) for i in _second_neighbours(row, known)), default=0.0),
            dated, dated * when,
        )
        reasons.append(tuple(name for name, ids in listed.items() if row_id in ids))
    return Signals(list(by_id.values()), matrix, reasons, cosine, known,
                   {i: n for n, i in enumerate(order["lexical"])}, {i: n for n, i in enumerate(order["semantic"])})


def linear_ranked(found: Signals, weights: Weights) -> list[Scored]:
    """The hits ranked by the scored fusion's one linear score of their signals."""
    return ranked_hits(found, found.matrix @ np.asarray([getattr(weights, name) for name in SIGNALS]))


def ranked_hits(found: Signals, scores: np.ndarray) -> list[Scored]:
    """The hits with their scores, best first, each with the reasons it is there."""
    out = []
    for n, row in enumerate(found.rows):
        reasons = found.reasons[n]
        reasons += ("dated",) if found.matrix[n, DATED] else ()
        reasons += ("speaker",) if found.matrix[n, SPEAKER] else ()
        out.append(Scored(row, float(scores[n]), reasons))
    return sorted(out, key=lambda s: (-s.score, s.row["id"]))


def diversified(items: list[Any], cap: int, groups: dict[str, str]) -> list[Any]:
    """The items (anything with an `id`) in order, except that past the first `cap` items of a
    group (`groups`: item id -> its note; items not in it belong to none), the group's others wait
    behind every other item."""
    if cap <= 0:
        return items
    counts: dict[str, int] = {}
    first: list[Any] = []
    later: list[Any] = []
    for item in items:
        key = groups.get(item.id)
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
        (later if key is not None and counts[key] > cap else first).append(item)
    return first + later


def salience_weights(path: Path) -> dict[str, float]:
    """Salience per chunk or entity id (0..1) from the file consolidation writes; empty if none."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return (
        {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float))} if isinstance(data, dict) else {}
    )
