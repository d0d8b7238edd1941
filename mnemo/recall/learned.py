"""The learned ranking: a query's BM25 and vector hits ordered by a small ensemble of regression
trees over their signals (the scored fusion's nine, `recall.rank.SIGNALS`, and nine more that a
linear score cannot use well: ranks, length, word coverage, how close the hit's whole chat
session or note is to the query, where the hit stands among its document's hits, and whether
it was said on a day the query names).

The trees are fitted with LightGBM's LambdaRank objective by the evaluation protocol
(`benchmarks/fitting/locomo_cv.py`, leave-one-conversation-out on the LoCoMo dev split: the
cross-validated figure is what a conversation the fit never saw gets) and shipped as data in
`ranker.json`; evaluating them needs numpy alone. The ensemble's output is a log-odds-like
score; recall uses its exponential, so that what later steps do by multiplying (salience,
faded passages, summaries) keeps its meaning.
"""

import json
import math
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.recall.dates import dates_in
from mnemo.recall.rank import COSINE, SIGNALS, Signals, is_dated
from mnemo.recall.search import HeldChunks

EXTRA = ("lexical_rank", "semantic_rank", "length", "coverage", "session_best_cosine", "session_top3_cosine",
         "neighbour_dated", "rank_in_document", "hits_in_document", "in_named_days")
FEATURES = (*SIGNALS, *EXTRA)
RANK_K = 60  # the rank features are 60 / (61 + rank), as reciprocal rank fusion with k = 60 scores a rank
IN_NAMED_DAYS, RANK_IN_DOCUMENT, HITS_IN_DOCUMENT = (
    EXTRA.index(name) for name in ("in_named_days", "rank_in_document", "hits_in_document"))
PACKAGED = Path(__file__).with_name("ranker.json")
_WORD = re.compile(r"[\w']+", re.UNICODE)
_STOP = frozenset(
    "a an the of to in on at for with and or but is are was were be been do does did what when where who whom which "
    "why how has have had it its this that these those i you he she they we my your his her their our from by as "
    "about".split()
)


@dataclass(frozen=True)
class Trees:
    """An ensemble of binary trees as flat arrays over all trees' nodes (tree t's node n at
    t * width + n): a node splits on `feature` (left when the value is at most `threshold`), its
    children are at `child[2 * node]` (left) and `child[2 * node + 1]` (right); a leaf is its own
    child and holds `value`. `depth` steps reach every leaf."""

    feature: np.ndarray
    threshold: np.ndarray
    child: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int
    features: tuple[str, ...]
    embedder: str = ""  # the embedder whose cosines the trees were fitted on (empty: not recorded)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """The ensemble's score for each row of x (columns in `features` order): every row walks
        every tree at once, one level per step."""
        rows = len(x)
        columns = np.ascontiguousarray(x.T, dtype=np.float64).ravel()  # feature f of row r at f * rows + r
        node = np.repeat(self.roots, rows)
        row = np.tile(np.arange(rows), len(self.roots))
        for _ in range(self.depth):
            right = columns[self.feature[node] * rows + row] > self.threshold[node]
            node = self.child[2 * node + right]
        return self.value[node].reshape(len(self.roots), rows).sum(axis=0)


def trees_from_json(data: dict[str, Any]) -> Trees:
    """Trees as `ranker.json` (or a fold's model written by the evaluation) holds them: one row
    per tree of node arrays, children numbered within their tree."""
    t = data["trees"]
    left, right = np.asarray(t["left"], dtype=np.int64), np.asarray(t["right"], dtype=np.int64)
    trees, width = left.shape
    start = (np.arange(trees) * width)[:, None]
    return Trees(np.asarray(t["feature"], dtype=np.int64).ravel(), np.asarray(t["threshold"], dtype=np.float64).ravel(),
                 np.stack([left + start, right + start], axis=-1).ravel(),
                 np.asarray(t["value"], dtype=np.float64).ravel(), start.ravel(), int(data["depth"]),
                 tuple(data["features"]), str(data.get("embedder") or ""))


def packaged_for(embedder: str) -> str:
    """The packaged trees fitted on this embedder's cosines (`ranker-<embedder>.json` beside
    `ranker.json`, which holds MiniLM's), or "" for `ranker.json` itself."""
    own = PACKAGED.with_name(f"ranker-{embedder}.json")
    return str(own) if embedder and own.is_file() else ""


@lru_cache(maxsize=8)
def load_trees(path: str = "") -> Trees:
    """The packaged ranker, or the one at `path`."""
    source = Path(path) if path else PACKAGED
    trees = trees_from_json(json.loads(source.read_text(encoding="utf-8")))
    if trees.features != FEATURES:
        raise ValueError(f"{source}: the ranker was fitted on features {trees.features}, recall computes {FEATURES}")
    return trees


_NOT_PEOPLE = frozenset({"", "user", "human", "assistant", "system", "tool", "model"})


def between_people(row: dict[str, Any]) -> bool:
    """Whether the hit is a chat turn said by a named person in a conversation between people
    (what the trees were fitted on), not a turn of an exchange with an assistant (a ChatGPT or
    Claude export, whose turns are said by `user` and `assistant`)."""
    if row.get("kind") != "chat":
        return False
    meta = json.loads(row.get("metadata") or "{}")
    return "assistant" not in (meta.get("roles") or []) and str(meta.get("speaker") or "").lower() not in _NOT_PEOPLE


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def _session_cosines(found: Signals, vector: np.ndarray, held: HeldChunks | None) -> dict[str, tuple[float, float]]:
    """Per document of the hits: the best cosine of any of its passages to the query and the mean
    of its best three (all its passages when the table is held, else those recall has read)."""
    by_doc: dict[str, list[float]] = {}
    docs = list(dict.fromkeys(r.get("doc_id", "") for r in found.rows))
    if held is not None:
        unit = np.asarray(vector, dtype=np.float32) / (float(np.linalg.norm(vector)) or 1.0)
        for doc, offsets in held.of_documents(docs).items():
            by_doc[doc] = ((held.vectors[offsets] @ unit) / held.norms[offsets]).tolist()
    else:
        for row_id, row in found.known.items():
            if row_id in found.cosine:
                by_doc.setdefault(row.get("doc_id", ""), []).append(found.cosine[row_id])
    out = {}
    for doc in docs:
        values = sorted(by_doc.get(doc) or [0.0], reverse=True)
        out[doc] = (values[0], float(np.mean(values[:3])))
    return out


def features_of(found: Signals, vector: np.ndarray, query: str, held: HeldChunks | None,
                today: date | None = None) -> np.ndarray:
    """One row per hit: its SIGNALS, then the EXTRA ones (`in_named_days`: the hit was said or
    written on a day the query names, `recall.dates`, with relative dates counted from `today`)."""
    span = dates_in(query, today or date.today())
    asked = set(_words(query)) - _STOP
    sessions = _session_cosines(found, vector, held)
    extra = np.zeros((len(found.rows), len(EXTRA)))
    for n, row in enumerate(found.rows):
        words = _words(row.get("text", ""))
        around = [found.known.get(i) for i in (row.get("prev_id"), row.get("next_id")) if i]
        best, top3 = sessions[row.get("doc_id", "")]
        extra[n, :RANK_IN_DOCUMENT] = (  # lexical_rank .. neighbour_dated
            _reciprocal(found.lexical_rank.get(row["id"])), _reciprocal(found.semantic_rank.get(row["id"])),
            math.log1p(len(words)),
            len(asked & set(words)) / max(1, len(asked)),
            best, top3,
            float(any(r is not None and is_dated(r) for r in around)),
        )
        extra[n, IN_NAMED_DAYS] = float(span is not None and span.holds(row.get("timestamp") or ""))
    _document_ranks(found, extra)
    return np.hstack([found.matrix, extra])


def _reciprocal(rank: int | None) -> float:
    """A hit's rank in one search as a feature (0 when that search did not find it)."""
    return RANK_K / (RANK_K + 1 + rank) if rank is not None else 0.0


def _document_ranks(found: Signals, extra: np.ndarray) -> None:
    """Each hit's rank among its document's hits by cosine (log1p), and how many hits it has."""
    by_doc: dict[str, list[int]] = {}
    for n, row in enumerate(found.rows):
        by_doc.setdefault(row.get("doc_id", ""), []).append(n)
    for members in by_doc.values():
        members.sort(key=lambda n: -found.matrix[n, COSINE])
        for rank, n in enumerate(members):
            extra[n, RANK_IN_DOCUMENT] = math.log1p(rank)
            extra[n, HITS_IN_DOCUMENT] = len(members)


def fits(path: str, embedder: str) -> bool:
    """Whether the trees (the packaged ones, or those at `path`) were fitted on this embedder's
    cosines, or do not say: another embedder's cosines lie on another scale."""
    fitted = load_trees(path).embedder
    return not fitted or fitted == embedder


def learned_scores(found: Signals, vector: np.ndarray, query: str, held: HeldChunks | None,
                   path: str = "") -> np.ndarray:
    """The hits' scores by the ranker (the packaged one, or the one at `path`): exp of its output."""
    if not found.rows:
        return np.zeros(0)
    return np.exp(load_trees(path).predict(features_of(found, vector, query, held)))
