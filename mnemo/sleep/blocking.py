"""Which entity pairs dedup compares, and the three bands it sorts them into (merge, review, leave).

Candidates come from blocking, never from all pairs: equal name keys (normalized, singular,
last path segment, initials), MinHash/LSH over name shingles (datasketch) and nearest entity
vectors; each is scored by `mnemo.sleep.dedup.score_pair`.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from mnemo.sleep.dedup import EntityRecord, PairScore, initials, name_keys, normalize_name, score_pair

if TYPE_CHECKING:
    from datasketch import MinHash  # with scipy ~0.3 s: imported by a run that has entities to compare

_NUM_PERM = 64


@dataclass
class Decisions:
    merges: list[PairScore] = field(default_factory=list)
    review: list[PairScore] = field(default_factory=list)
    candidates: int = 0


def decide(
    records: list[EntityRecord], merge_at: float, review_at: float,
    focus: set[str] | None = None, kept_apart: set[frozenset[str]] | None = None,
) -> Decisions:
    """Score blocked candidate pairs and sort them into merge, review and leave bands."""
    by_id = {r.id: r for r in records}
    decisions = Decisions()
    pairs = sorted(candidate_pairs(records, focus))
    decisions.candidates = len(pairs)
    for x, y in pairs:
        if kept_apart and frozenset((x, y)) in kept_apart:
            continue
        scored = score_pair(by_id[x], by_id[y])
        if scored.score >= merge_at:
            decisions.merges.append(scored)
        elif scored.score >= review_at:
            decisions.review.append(scored)
    return decisions


def _shingles(text: str) -> set[bytes]:
    padded = f" {normalize_name(text)} "
    return {padded[i:i + 3].encode() for i in range(max(1, len(padded) - 2))}


def _minhash(text: str) -> "MinHash":
    from datasketch import MinHash

    template = _minhash_template()  # its permutations drawn once, not per entity (0.35 ms each)
    sketch = MinHash(num_perm=_NUM_PERM, seed=7, permutations=template.permutations, scheme=template.scheme)
    sketch.update_batch(list(_shingles(text)))
    return sketch


@lru_cache(maxsize=1)
def _minhash_template() -> "MinHash":
    from datasketch import MinHash

    return MinHash(num_perm=_NUM_PERM, seed=7)


def candidate_pairs(
    records: list[EntityRecord], focus: set[str] | None = None, k_vectors: int = 3
) -> set[tuple[str, str]]:
    """Pairs worth scoring, from blocking keys, LSH and vector neighbours; `focus` limits them
    to pairs touching those ids (the entities that are new or changed since the last run)."""
    from datasketch import MinHashLSH

    pairs: set[tuple[str, str]] = set()
    blocks: dict[str, set[str]] = defaultdict(set)
    lsh = MinHashLSH(threshold=0.5, num_perm=_NUM_PERM)
    sketches = {}
    for rec in records:
        for name in rec.names:
            for key in name_keys(name) | ({initials(name)} - {""}):
                blocks[key].add(rec.id)
        sketches[rec.id] = _minhash(" ".join(rec.names))
        lsh.insert(rec.id, sketches[rec.id])
    for members in blocks.values():
        ordered = sorted(members)
        pairs.update((x, y) for i, x in enumerate(ordered) for y in ordered[i + 1:])
    for rec in records:
        if focus is None or rec.id in focus:
            pairs.update(tuple(sorted((rec.id, other))) for other in lsh.query(sketches[rec.id]) if other != rec.id)
    pairs |= _vector_pairs(records, focus, k_vectors)
    if focus is not None:
        pairs = {p for p in pairs if p[0] in focus or p[1] in focus}
    return pairs


def _vector_pairs(records: list[EntityRecord], focus: set[str] | None, k: int) -> set[tuple[str, str]]:
    with_vectors = [r for r in records if r.vector is not None]
    vectors = [r.vector for r in records if r.vector is not None]
    if len(with_vectors) < 2 or k <= 0:
        return set()
    matrix = np.stack(vectors).astype(np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    rows = [i for i, r in enumerate(with_vectors) if focus is None or r.id in focus]
    pairs: set[tuple[str, str]] = set()
    for start in range(0, len(rows), 1024):
        block = rows[start:start + 1024]
        sims = matrix[block] @ matrix.T
        for row, i in zip(sims, block):
            row[i] = -1.0
            for j in np.argsort(-row)[:k]:
                if int(j) != i and with_vectors[int(j)].id != with_vectors[i].id:  # fewer than k others: never itself
                    first, second = sorted((with_vectors[i].id, with_vectors[int(j)].id))
                    pairs.add((first, second))
    return pairs
