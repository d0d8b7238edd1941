"""Speaker profile items (sleep mode's `speakers` state, `sleep.speaker_profiles`) in recall.

A question about what someone is like ("Would Melanie rather visit a national park or a theme
park?") is rarely worded like the turns that answer it; the profile item that gathers that
person's own words on the topic is. The items of the people the query names (of everyone,
when it names none) are compared with the query's vector; the `count` nearest become recalled
items of kind `profile` that cite their turns, and the turns they cite join the candidates,
each gaining `weight` times the item's cosine to the query.
"""

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from mnemo.documents import normalize_name
from mnemo.recall.rank import Pool
from mnemo.recall.results import RecalledItem
from mnemo.recall.search import HeldChunks, rows_by_id
from mnemo.recall.settings import Ranking
from mnemo.sleep.store import SleepFiles
from mnemo.stores.session import SPEAKER_PROFILES, NamespaceSession, mtime_size
from mnemo.stores.vector_table import VectorTable


@dataclass(frozen=True)
class Profiles:
    """A namespace's profile items and their vectors (one row each)."""

    items: list[dict[str, Any]]
    vectors: np.ndarray

    @classmethod
    def load(cls, session: NamespaceSession) -> "Profiles":
        """The items sleep mode last wrote, parsed once per version of the file; none before it ran."""
        path = SleepFiles(session.root, session).root / "state" / "speakers.json"
        version = mtime_size(path)
        try:
            if version is not None:
                return session.current(SPEAKER_PROFILES, version, lambda: cls.parse(json.loads(path.read_bytes())))
        except (OSError, ValueError):
            pass  # unreadable: as before sleep mode ran
        return cls([], np.zeros((0, 0), dtype=np.float32))

    @classmethod
    def parse(cls, state: Any) -> "Profiles":
        items = [i for i in (state.get("items") if isinstance(state, dict) else None) or []
                 if isinstance(i, dict) and i.get("vector") and i.get("sources")]
        vectors = np.asarray([i["vector"] for i in items], dtype=np.float32)
        return cls(items, vectors.reshape(len(items), -1) if items else np.zeros((0, 0), dtype=np.float32))

    def nearest(self, query: str, vector: np.ndarray, count: int) -> list[tuple[dict[str, Any], float]]:
        """The `count` items nearest the query's vector, of the people the query names if any."""
        if not self.items or self.vectors.shape[1] != len(vector):
            return []
        padded = f" {normalize_name(query)} "
        named = [n for n, i in enumerate(self.items) if f" {normalize_name(i['speaker'])} " in padded]
        rows = np.asarray(named or range(len(self.items)))
        norm = float(np.linalg.norm(vector)) or 1.0
        cosines = self.vectors[rows] @ np.asarray(vector, dtype=np.float32) / norm
        order = np.argsort(-cosines, kind="stable")[:count]
        return [(self.items[int(rows[j])], float(cosines[j])) for j in order]


def add_profiles(pool: Pool, chosen: list[tuple[dict[str, Any], float]], weight: float,
                 rows: dict[str, dict[str, Any]]) -> None:
    """The turns the chosen items cite join the pool (`rows`: their rows, for those not in it)."""
    for item, cosine in chosen:
        for chunk_id in item["sources"]:
            row = pool.rows.get(chunk_id) or rows.get(chunk_id)
            if row is not None:
                pool.add(chunk_id, weight * cosine, "profile", row)


def profile_items(chosen: list[tuple[dict[str, Any], float]]) -> list[RecalledItem]:
    """The chosen items as recall returns them: their text, citing their turns."""
    return [RecalledItem(item["id"], "profile", item["text"], round(cosine, 6), title=item["speaker"],
                         reasons=["profile"], metadata={"sources": list(item["sources"])})
            for item, cosine in chosen]


def profile_round(session: NamespaceSession, table: VectorTable, held: HeldChunks | None, pool: Pool, query: str,
                  vector: np.ndarray, ranking: Ranking) -> list[RecalledItem]:
    """The profile items nearest the query, their turns added to the pool (none while the
    weight is 0 or sleep mode has written none)."""
    if not ranking.profile_weight:
        return []
    chosen = Profiles.load(session).nearest(query, vector, ranking.profile_items)
    wanted = [i for item, _ in chosen for i in item["sources"] if i not in pool.rows]
    rows = {r["id"]: r for r in held.full_rows(wanted)} if held is not None else rows_by_id(table, wanted)
    add_profiles(pool, chosen, ranking.profile_weight, rows)
    return profile_items(chosen)
