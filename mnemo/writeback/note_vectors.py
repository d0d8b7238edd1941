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
MEANING_PENALTY = 0.0  # what distance takes from it at cosine 0 (0.5 lost a hidden link on logseq-docs)


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

    def cosines(self, note: str, others: list[str]) -> dict[str, float]:
        """other note -> its cosine to the note, for those of `others` with a vector (none when the note has none)."""
        row = self.rows.get(note)
        found = [o for o in others if o in self.rows]
        if row is None or not found:
            return {}
        similar = self.unit[[self.rows[o] for o in found]] @ self.unit[row]
        return {o: float(c) for o, c in zip(found, similar, strict=True)}


def meaning_weight(cosine: float, floor: float = MEANING_FLOOR, weight: float = MEANING_WEIGHT,
                   penalty: float = MEANING_PENALTY) -> float:
    """What two notes' evidence is multiplied by for their closeness in meaning: 1 at `floor`,
    1 + `weight` at cosine 1, and below the floor down to 1 - `penalty` at cosine 0 (never below 0)."""
    if cosine >= floor:
        return 1.0 + weight * (cosine - floor) / (1.0 - floor)
    return max(0.0, 1.0 - penalty * (floor - cosine) / floor)
