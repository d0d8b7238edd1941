"""Community pages a person keeps: members alike in meaning, and a summary that says something.

Sleep mode finds communities by links and co-mentions, and keeps only those whose name-giver reaches
most members (link cohesion, sleep/view.py). Links alone can still put unlike notes together (a
post about buying well beside a tart recipe that cites it). So before the pages are written, each
member note's closeness in meaning to the rest is measured: its cosine to the centre of the other
member notes' mean passage embeddings (note_vectors.py). A member below `MEMBER_FLOOR` and below half
the members' median (an outlier of its own community, whatever the embedder's scale) is not listed
on the page and its note gets no `mnemo-community`; a community that this leaves with fewer than two members
alike is not written at all. The community's semantic cohesion is the members' mean cosine to the
centre of all of them. Members that are not notes (entities only mentioned) have no passages of
their own and are kept as they are.

A summary that only lists names (`Kyoto, Fushimi Inari, Japan, 2023 Japan Trip`) says nothing the
member list does not; it is left out, and each member line carries its note's first sentence instead.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from mnemo.writeback.note_vectors import NoteVectors

MEMBER_FLOOR = 0.13  # cosine to the centre of the other members below which one is not listed (docs/WRITEBACK.md)
_PARTS = re.compile(r"\s*[,;]\s*|\s+(?:and|e|y|et|und)\s+")


@dataclass(frozen=True)
class Trimmed:
    """Which members of a community are listed, which are far in meaning, and its semantic cohesion."""

    kept: tuple[str, ...]  # entity ids
    far: tuple[str, ...]  # entity ids
    cohesion: float | None  # mean cosine of member notes to their centre (None: fewer than 2 with passages)


def trim_members(members: list[str], note_of: Mapping[str, str | None], meanings: NoteVectors) -> Trimmed:
    """The members whose note is close enough in meaning to the other member notes (entity ids in,
    `note_of`: entity -> its note id)."""
    placed = [(e, meanings.rows[n]) for e in members if (n := note_of.get(e)) and n in meanings.rows]
    if len(placed) < 2:
        return Trimmed(tuple(members), (), None)
    vectors = meanings.unit[[row for _, row in placed]].astype(np.float64)
    total = vectors.sum(axis=0)
    centre = total / max(float(np.linalg.norm(total)), 1e-9)
    cohesion = float(np.mean(vectors @ centre))
    far = set()
    if len(placed) >= 3:  # with two members, neither is "the rest"
        closeness = [float(v @ (total - v)) / max(float(np.linalg.norm(total - v)), 1e-9) for v in vectors]
        usual = float(np.median(closeness))
        far = {entity for (entity, _), near in zip(placed, closeness, strict=True)
               if near < MEMBER_FLOOR and near < usual / 2}
    return Trimmed(tuple(e for e in members if e not in far), tuple(e for e in members if e in far),
                   round(cohesion, 4))


def only_names(summary: str, names: set[str]) -> bool:
    """Whether a summary is nothing but a list of the given names (`A, B, C and D.`)."""
    parts = [p.strip(" .:") for p in _PARTS.split(summary.strip()) if p.strip(" .:")]
    known = {n.lower() for n in names}
    return bool(parts) and all(p.lower() in known for p in parts)
