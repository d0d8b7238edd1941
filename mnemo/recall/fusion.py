"""Recall's fusion strategies: how one search's full-text and vector hits become one ranking.

The engine chooses its strategy once, when it is built (`fusion_for`, from `Ranking.fusion`);
every search recall runs (the query's, and a second round's) is ranked by it:

- `learned` (`LearnedFusion`, the default): the learned ranking's trees (`recall.learned`) when
  most hits are turns of conversations between people and the trees were fitted with this
  engine's embedder; otherwise the scored fusion's weights;
- `scored` (`ScoredFusion`): one linear score of the hits' signals (`recall.rank`);
- `rrf` (`ReciprocalRankFusion`): reciprocal rank fusion of the two lists, turns said by
  someone the query names doubled: the earlier ranking, kept as a baseline for the benchmarks.

Each returns a `Ranked`, which also tells the later steps what they must know of its scores:
whether the ranking already weighed the days the query names, and the scale on which passages
of those days that the searches missed join the pool.
"""

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from mnemo.documents import normalize_name
from mnemo.recall.learned import between_people, fits, learned_scores, packaged_for
from mnemo.recall.query_language import unread_by
from mnemo.recall.rank import (
    Scored,
    Signals,
    Weights,
    linear_ranked,
    ranked_hits,
    rows_around,
    said_by_named,
    signals_of,
    weights_of,
)
from mnemo.recall.search import HeldChunks
from mnemo.recall.settings import Ranking
from mnemo.stores.vector_table import VectorTable

SPEAKER_FACTOR = 2.0  # the `rrf` baseline: a turn said by someone the query names counts this many times


@dataclass(frozen=True)
class Hits:
    """One search's results: the query, its vector, its full-text and vector hits (best first),
    and where the turns around them are read (the table's version, and its held rows if any)."""

    query: str
    vector: np.ndarray
    lexical: list[dict[str, Any]]
    semantic: list[dict[str, Any]]
    table: VectorTable
    held: HeldChunks | None


@dataclass(frozen=True)
class Ranked:
    """A search's hits ranked by a strategy, best first, with what later steps need of the scale."""

    hits: list[Scored]
    weighs_days: bool = False  # the ranking weighed the days the query names itself (no lift after it)
    dated_scale: float | None = None  # missed passages of named days join at cosine × this; None: below every hit


class Fusion(Protocol):
    """A named fusion strategy."""

    @property
    def name(self) -> str: ...

    def rank(self, hits: Hits) -> Ranked: ...


def _signals(hits: Hits, hops: int, rrf_k: int) -> Signals:
    around = rows_around(hits.table, hits.lexical + hits.semantic, hops, hits.held)
    return signals_of(hits.lexical, hits.semantic, around, hits.vector, hits.query, rrf_k)


@dataclass(frozen=True)
class ScoredFusion:
    """One linear score of each hit's signals (`recall.rank`); for a query the embedder (named
    `embedder`) cannot read, BM25 weighs `unread_factor` times more (`recall.query_language`)."""

    weights: Weights
    embedder: str = ""
    unread_factor: float = 1.0
    name: str = "scored"

    def rank(self, hits: Hits) -> Ranked:
        found = _signals(hits, 2 if self.weights.second_neighbour_cosine else 1, self.weights.rrf_k)
        return self.ranked(found, hits.query)

    def ranked(self, found: Signals, query: str = "") -> Ranked:
        """Hits whose signals are known, ranked; passages of named days join by their cosine term alone."""
        weights = self.weights
        if self.unread_factor != 1.0 and unread_by(self.embedder, query):
            weights = replace(weights, bm25=weights.bm25 * self.unread_factor)
        return Ranked(linear_ranked(found, weights), dated_scale=weights.cosine)


@dataclass(frozen=True)
class LearnedFusion:
    """The learned ranking's trees (`ranker`: their file, empty for the packaged ones fitted with
    `embedder`) for conversations between people, when fitted with `embedder`; the scored fusion
    otherwise."""

    ranker: str
    embedder: str
    otherwise: ScoredFusion
    name: str = "learned"

    def rank(self, hits: Hits) -> Ranked:
        found = _signals(hits, 2, self.otherwise.weights.rrf_k)
        people = sum(between_people(row) for row in found.rows)
        ranker = self.ranker or packaged_for(self.embedder)
        if people * 2 > len(found.rows) and fits(ranker, self.embedder):
            scores = learned_scores(found, hits.vector, hits.query, hits.held, ranker)
            return Ranked(ranked_hits(found, scores), weighs_days=True)
        return self.otherwise.ranked(found, hits.query)


def reciprocal_rank(hits: Hits, rrf_k: int) -> dict[str, Scored]:
    """Each hit's reciprocal-rank score summed over both lists (the full-text one first), by id."""
    fused: dict[str, Scored] = {}
    for reason, rows in (("lexical", hits.lexical), ("semantic", hits.semantic)):
        for rank, row in enumerate(rows):
            seen = fused.get(row["id"])
            score = 1.0 / (rrf_k + rank + 1)
            fused[row["id"]] = Scored(row, score, (reason,)) if seen is None else \
                Scored(seen.row, seen.score + score, (*seen.reasons, reason))
    return fused


@dataclass(frozen=True)
class ReciprocalRankFusion:
    """Reciprocal rank fusion of the two lists; turns said by someone the query names count double."""

    rrf_k: int
    name: str = "rrf"

    def rank(self, hits: Hits) -> Ranked:
        padded = f" {normalize_name(hits.query)} "
        out = []
        for hit in reciprocal_rank(hits, self.rrf_k).values():
            said = said_by_named(hit.row, padded)
            out.append(Scored(hit.row, hit.score * SPEAKER_FACTOR, (*hit.reasons, "speaker")) if said else hit)
        return Ranked(sorted(out, key=lambda s: (-s.score, s.row["id"])))


def _scored(r: Ranking, embedder: str, foreign_notes: bool) -> ScoredFusion:
    return ScoredFusion(weights_of(r), embedder, r.unread_query_bm25_factor if foreign_notes else 1.0)


STRATEGIES: dict[str, Callable[[Ranking, str, bool], Fusion]] = {  # `Ranking.fusion` -> its strategy
    "learned": lambda r, embedder, foreign: LearnedFusion(r.ranker, embedder, _scored(r, embedder, foreign)),
    "scored": lambda r, embedder, foreign: _scored(r, embedder, foreign),
    "rrf": lambda r, _, __: ReciprocalRankFusion(r.rrf_k),
}


def fusion_for(ranking: Ranking, embedder: str, foreign_notes: bool = False) -> Fusion:
    """The strategy `ranking.fusion` names, for an engine whose embedder is called `embedder`;
    `foreign_notes`: most of the notes are in a language other than English, so a question in a
    language the embedder cannot read leans on the words (`recall.query_language`)."""
    return STRATEGIES[ranking.fusion](ranking, embedder, foreign_notes)
