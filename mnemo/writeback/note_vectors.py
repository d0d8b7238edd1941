"""What each note means, as one vector, for related notes: the mean of its passages' embeddings.

Of two notes that share neighbours, those that are also about the same thing are the likelier
link. Closeness counts above a floor only (`MEANING_FLOOR`): two notes of one vault are always
somewhat alike, in words and subject, and that background says nothing. Floor and weight were
chosen by link prediction on logseq-docs (`mnemo eval links`, docs/EVALUATION.md).
"""

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

MEANING_FLOOR = 0.3  # cosine at or below which two notes' closeness counts for nothing (chosen on logseq-docs)
MEANING_WEIGHT = 1.0  # what closeness adds to the weight of two notes' evidence at cosine 1
_CANDIDATES = 50  # a note's nearest notes considered: a bound on the work per note at any vault size


@dataclass(frozen=True)
class NoteVectors:
    """Notes' mean passage vectors, unit length, one row per note."""

    ids: tuple[str, ...]
    unit: np.ndarray
    rows: dict[str, int]

    @classmethod
    def of(cls, means: Mapping[str, np.ndarray]) -> "NoteVectors":
        ids = tuple(sorted(means))
        if not ids:
            return cls((), np.zeros((0, 0), dtype=np.float32), {})
        matrix = np.stack([np.asarray(means[i], dtype=np.float32) for i in ids])
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
        return cls(ids, matrix, {note: row for row, note in enumerate(ids)})

    def nearest(self, note: str, floor: float = MEANING_FLOOR) -> dict[str, float]:
        """other note -> cosine, for the note's nearest notes above `floor` (none when it has no vector)."""
        row = self.rows.get(note)
        if row is None:
            return {}
        similar = self.unit @ self.unit[row]
        similar[row] = -1.0
        count = min(_CANDIDATES, len(self.ids) - 1)
        if count <= 0:
            return {}
        best = np.argpartition(-similar, count - 1)[:count]
        return {self.ids[i]: float(similar[i]) for i in sorted(best) if similar[i] > floor}


def meaning_evidence(cosine: float, floor: float = MEANING_FLOOR, weight: float = MEANING_WEIGHT) -> float:
    """How much two notes' closeness in meaning adds to the weight of their evidence: 0 at `floor`, `weight` at 1."""
    return weight * max(0.0, cosine - floor) / (1.0 - floor)
