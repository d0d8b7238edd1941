"""Query similarity: the cosine between the query's vector and each passage's vector, which recall
reports on every passage it returns (`similarity`) and which `min_similarity` is a floor on.

Cosine similarity ranges from -1 to 1 (1: the same direction). Only passages (chunks) have one;
items that are not passages — a relation from the graph (deliberate mode) or a sleep-mode summary,
which joins only for passages that passed the floor — carry none (`similarity` None) and are kept.
"""

from typing import Any

import numpy as np

from mnemo.errors import InvalidQuery
from mnemo.recall.rank import Pool


def check_floor(min_similarity: float | None, query: str | None) -> float | None:
    """The floor when valid: a number from -1 to 1, with a query to compare passages with."""
    if min_similarity is None:
        return None
    if isinstance(min_similarity, bool) or not isinstance(min_similarity, (int, float)) \
            or not -1.0 <= min_similarity <= 1.0:
        raise InvalidQuery(f"invalid min_similarity {min_similarity!r}: give a number from -1 to 1")
    if not (query and query.strip()):
        raise InvalidQuery("min_similarity needs a query: it is the passages' cosine similarity to it")
    return float(min_similarity)


def similarities(rows: dict[str, dict[str, Any]], ids: list[str], vector: np.ndarray | None) -> dict[str, float]:
    """Row id -> cosine similarity of its vector to the query's (rows without a vector are absent)."""
    if vector is None:
        return {}
    found = [i for i in ids if rows.get(i, {}).get("vector") is not None]
    if not found:
        return {}
    matrix = np.asarray([rows[i]["vector"] for i in found], dtype=np.float32)
    query = np.asarray(vector, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(query) or 1.0)
    cosines = (matrix @ query) / np.where(norms == 0, 1.0, norms)
    return {i: round(float(c), 6) for i, c in zip(found, cosines)}


def drop_dissimilar(pool: Pool, vector: np.ndarray | None, floor: float | None) -> None:
    """Take out of the pool the passages less similar to the query than `floor` (when given)."""
    if floor is None:
        return
    for row_id, cosine in similarities(pool.rows, list(pool.scores), vector).items():
        if cosine < floor:
            del pool.scores[row_id]
