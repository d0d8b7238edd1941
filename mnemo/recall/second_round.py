"""Recall's second round: the first round's best hits expand the query, and both rounds merge.

What a multi-hop question needs is often not in its own words but in the passages that answer
its first half ("Where did she move from?" finds "since I moved from my home country"; the
country is named in another session). The second round takes the best `docs` hits of
the first, picks the words that set them apart from the rest of the first round's candidates
(the words they share, weighted by the hits' rank, by how rare each word is among the
candidates; names of people and places are words like any other), searches again with the
query and those words, ranks the new hits by the same scored fusion, and merges the two
rankings by reciprocal rank (the second weighted by `weight`). Merged scores are put back on the
first round's scale, so what recall adds after the searches (dates, entities, salience) weighs
as it did.
"""

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mnemo.recall.rank import Pool, Scored
from mnemo.recall.settings import Ranking

_TERM = re.compile(r"[^\W\d_][\w'-]{2,}", re.UNICODE)


@dataclass(frozen=True)
class SecondRound:
    """How the second round expands and merges (Ranking fields)."""

    docs: int  # first-round hits whose words expand the query
    terms: int  # words added to the query
    weight: float  # the second round's share in the merge (the first's is 1)
    rrf_k: int = 60

    @classmethod
    def of(cls, r: Ranking) -> "SecondRound":
        return cls(r.second_round_docs, r.second_round_terms, r.second_round_weight, r.rrf_k)


@cache
def stop_words() -> frozenset[str]:
    lines = (Path(__file__).with_name("stop_words.txt").read_text(encoding="utf-8")).splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def terms_of(text: str) -> list[str]:
    """The lower-cased words of a text that can expand a query (no stop words or numbers)."""
    return [w for w in (t.lower().strip("'-") for t in _TERM.findall(text)) if len(w) > 2 and w not in stop_words()]


def expansion(query: str, best: list[str], candidates: list[str], count: int) -> list[str]:
    """The `count` words of the best hits' texts (best first) not in the query that weigh most:
    each hit's share of a word (its count over the hit's length) weighted by 1/(rank+1), times the
    word's inverse frequency among all the first round's candidates."""
    asked = set(terms_of(query))
    frequency = Counter(w for text in candidates for w in set(terms_of(text)))
    weights: dict[str, float] = {}
    for rank, text in enumerate(best):
        words = [w for w in terms_of(text) if w not in asked]
        for word, n in Counter(words).items():
            weights[word] = weights.get(word, 0.0) + (n / len(words)) / (rank + 1)
    total = len(candidates) + 1
    scored = {w: v * math.log(total / (frequency.get(w, 0) + 0.5)) for w, v in weights.items()}
    return [w for w, _ in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:count]]


def merged(pool: Pool, second: list[Scored], rounds: SecondRound) -> None:
    """The pool's scores become the reciprocal-rank merge of its own order and the second
    round's, rescaled so the best keeps the first round's best score."""
    first = pool.best()
    if not first:
        return
    top = pool.scores[first[0]]
    rrf: dict[str, float] = {i: 1.0 / (rounds.rrf_k + r + 1) for r, i in enumerate(first)}
    for rank, hit in enumerate(second):
        row_id = hit.row["id"]
        rrf[row_id] = rrf.get(row_id, 0.0) + rounds.weight / (rounds.rrf_k + rank + 1)
        pool.rows.setdefault(row_id, hit.row)
        if row_id not in pool.reasons:
            pool.reasons[row_id] = list(hit.reasons)
        pool.reasons[row_id].append("second round")
    best = max(rrf.values())
    pool.scores = {i: top * v / best for i, v in rrf.items()}


def second_round(pool: Pool, query: str, rounds: SecondRound,
                 search: Callable[[str], list[Scored]]) -> list[str]:
    """Run the second round over a pool the first round filled: `search` ranks a query's hits by
    the scored fusion. Returns the words the query was expanded with (none: no second round)."""
    order = pool.best()
    best = [_text(pool.rows[i]) for i in order[: rounds.docs]]
    words = expansion(query, best, [_text(pool.rows[i]) for i in order], rounds.terms)
    if not words:
        return []
    merged(pool, search(f"{query} {' '.join(words)}"), rounds)
    return words


def _text(row: dict[str, Any]) -> str:
    return str(row.get("text") or "")
