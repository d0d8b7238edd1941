"""Themes and connections in recall, from what sleep mode wrote (`mnemo.sleep.themes`).

After the searches, the notes linked with the best notes (`Ranking.neighbour_weight`) and the
notes of a theme the question matches (`Ranking.theme_weight`: a community or a hub note,
matched by vector and by its names) compete for the places after the first `KEPT` notes: each
joins with one passage (the one nearest the question), scored from the note that brought it
and from how near the note is to the question, never above the `KEPT`-th note's score. A
question that matches no theme strongly and whose best notes link nowhere near the question
ranks as before. A theme is confirmed when its lead note is already among the `KEPT` best notes
(`confirmed_theme`), and so is the hub whose own note is the search's best note, when that note
links with at most `LED_LINKS` notes (`led_theme`; a note linked with more is an index of
everything, not a theme), and, when neither holds, the theme that the search's own best notes
share (`shared_theme`: at least `SHARED` of the first `SHARED_AMONG` notes are its notes, and its
lead note is among the first `SHARED_LEAD`): the question is about it, so its notes, nearest the
question first, take the places right after them. Nothing changes before sleep mode has written
its themes.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.recall.rank import Pool
from mnemo.recall.results import RecalledItem
from mnemo.recall.search import HeldChunks
from mnemo.sleep.themes import HUB_LINKS, themes_paths
from mnemo.stores.session import THEMES, NamespaceSession, mtime_size

KEPT = 3  # the best notes no linked note or theme note can pass
SEEDS = 3  # the best notes whose links are followed
SECOND_HOP = 0.0  # a note two links away weighs this share of one a link away (0, 0.5 and 1 measured the same)
THEME_FLOOR = 0.45  # a theme's match (cosine, plus WORD_BONUS when its names are in the question) that counts
WORD_BONUS = 0.15
RANK_STEP = 0.1  # a theme's n-th note weighs 1 / (1 + RANK_STEP * n) of its first
OTHER_PASSAGES = 0.3  # after a theme matched, a note's passages after its best weigh this share
REL_FLOOR = 0.5  # a linked note weighs at least this share, however far from the question
CONFIRMING = 3  # the best-matched themes whose lead note may confirm the question is about them
CONFIRMED_STEP = 0.002  # a confirmed theme's notes each weigh this share less than the one before (0: off)
CONFIRMED_NEAR = 0.25  # a confirmed theme's note is at least this share as near the question as its lead note
LED_LINKS = 24  # a hub whose note is the best note is confirmed when it links with at most this many notes (0: off)
SHARED = 3  # a theme this many of the search's first SHARED_AMONG notes belong to is confirmed (0: off)
SHARED_AMONG = 10
SHARED_LEAD = 15  # ... when its lead note is among the search's first this many notes
JOINED = 30  # linked and theme notes that join at most, the best first (more cannot reach the k items)
BELOW = 0.999  # a linked note stays under the KEPT-th note's score by this factor
THEME_REASON, LINK_REASON = "theme", "linked"
_WORD = re.compile(r"\w{3,}")


@dataclass
class Themes:
    """The note graph and themes of one namespace, as sleep mode last wrote them."""

    notes: dict[str, int]  # doc id -> its row in `vectors`
    chunks: dict[str, list[str]]
    links: dict[str, dict[str, float]]
    themes: list[dict[str, Any]]
    vectors: np.ndarray
    named_by: dict[str, list[int]] = field(default_factory=dict)  # a word of a theme's names -> the themes
    hub_of: dict[str, dict[str, Any]] = field(default_factory=dict)  # a hub's own note -> its theme
    led_by: dict[str, list[dict[str, Any]]] = field(init=False)  # a lead note -> the themes it leads

    def __post_init__(self) -> None:
        self.led_by = {}
        for theme in self.themes:
            if theme["notes"]:
                self.led_by.setdefault(theme["notes"][0], []).append(theme)

    @classmethod
    def load(cls, session: NamespaceSession) -> "Themes | None":
        """The namespace's themes, parsed once per version of their file; None before any sleep."""
        data_path, vectors_path = themes_paths(session.root)
        version = mtime_size(data_path)
        if version is None:
            session.drop(THEMES)
            return None
        return session.current(THEMES, version, lambda: cls.read(data_path, vectors_path))

    @classmethod
    def read(cls, data_path: Path, vectors_path: Path) -> "Themes":
        data = json.loads(data_path.read_text(encoding="utf-8"))
        matrix = np.load(vectors_path)
        notes = {doc: n for n, doc in enumerate(data["notes"])}
        named_by: dict[str, list[int]] = {}
        for n, theme in enumerate(data["themes"]):
            for word in {w for name in theme["words"] for w in _WORD.findall(name.lower())}:
                named_by.setdefault(word, []).append(n)
        hubs = {theme["notes"][0]: theme for theme in data["themes"] if theme["kind"] == "hub" and theme["notes"]}
        return cls(notes, data["chunks"], data["links"], data["themes"], matrix, named_by, hubs)


@dataclass(frozen=True)
class Weights:
    neighbour: float
    theme: float


def linked_round(pool: Pool, themes: Themes, vector: np.ndarray, query: str, weights: Weights,
                 held: HeldChunks | None) -> list[dict[str, Any]]:
    """Add the passages of linked and theme notes to the pool (see the module's docstring); the
    themes that matched, best first."""
    by_note = _note_scores(pool, themes)
    if not by_note:
        return []
    ranked = sorted(by_note, key=lambda d: -by_note[d])
    cosines = themes.vectors @ vector.astype(np.float32)
    near = _Near(themes.notes, cosines)
    wanted: dict[str, tuple[float, str]] = {}
    if weights.neighbour:
        _neighbours(themes, ranked[:SEEDS], by_note, near, weights.neighbour, wanted)
    matched = _matched_themes(themes, cosines[len(themes.notes):], query) if weights.theme else []
    ceiling = by_note[ranked[min(KEPT, len(ranked)) - 1]] * BELOW
    confirmed = _confirmed(themes, matched, ranked) if CONFIRMED_STEP and weights.theme else None
    if confirmed is not None:
        matched = [(confirmed, 1.0)]
        _confirmed_notes(themes, confirmed, near, ceiling * weights.theme, wanted)
    for theme, strength in matched[:1] if confirmed is None else []:
        top = by_note[ranked[0]]
        for rank, doc in enumerate(n for n in theme["notes"] if n in themes.notes):
            score = weights.theme * top * strength / (1 + RANK_STEP * rank)
            if score > wanted.get(doc, (0.0, ""))[0]:
                wanted[doc] = (score, THEME_REASON)
    rising = sorted((d for d, (score, _) in wanted.items() if min(score, ceiling) > by_note.get(d, 0.0)),
                    key=lambda d: (-min(wanted[d][0], ceiling), d))
    for doc in rising[:JOINED]:
        score, reason = wanted[doc]
        _join(pool, themes, doc, min(score, ceiling), by_note.get(doc, 0.0), vector, held, reason)
    if matched:
        _tag(pool, themes, matched[0][0])
    if held is not None:  # the joined passages' rows from memory, not from the table
        pool.rows.update((r["id"], r) for r in held.full_rows([c for c in pool.scores if c not in pool.rows]))
    if matched and OTHER_PASSAGES < 1.0:
        _one_passage_each(pool, themes)
    return [theme for theme, _ in matched]


def confirmed_theme(matched: list[tuple[dict[str, Any], float]], best: list[str]) -> dict[str, Any] | None:
    """The best-matched of the first CONFIRMING themes whose lead note (a hub's own note, a
    community's most central) is among the search's best notes: the question is about it."""
    for theme, _ in matched[:CONFIRMING]:
        if theme["notes"] and theme["notes"][0] in best:
            return theme
    return None


def _confirmed(themes: Themes, matched: list[tuple[dict[str, Any], float]], ranked: list[str]) -> dict[str, Any] | None:
    return confirmed_theme(matched, ranked[:KEPT]) or led_theme(themes, ranked[0]) or shared_theme(themes, ranked)


def led_theme(themes: Themes, best: str) -> dict[str, Any] | None:
    """The hub whose own note is the search's best note, unless that note links with more than
    LED_LINKS notes (an index of everything, too general to say what the question is about)."""
    theme = themes.hub_of.get(best)
    return theme if theme is not None and _direct_links(themes, best) <= LED_LINKS else None


def shared_theme(themes: Themes, ranked: list[str]) -> dict[str, Any] | None:
    """The theme most of the search's first SHARED_AMONG notes belong to (its notes and its lead
    note's links), at least SHARED of them, led by a note among the first SHARED_LEAD; of equals,
    the one whose lead note ranks first. Several of the best notes sharing a theme say the question
    is about it even when its names never matched. An index (a note linked with more than
    LED_LINKS notes) shares every theme: it counts for none and leads none."""
    if not SHARED:
        return None
    first = ranked[:max(SHARED_AMONG, SHARED_LEAD)]
    narrow = {d for d in first if _direct_links(themes, d) <= LED_LINKS}
    best_notes = narrow.intersection(ranked[:SHARED_AMONG])
    found, most = None, SHARED - 1
    for lead in (d for d in ranked[:SHARED_LEAD] if d in narrow):
        for theme in themes.led_by.get(lead, ()):
            shared = len(best_notes & _offered(themes, theme))
            if shared > most:
                found, most = theme, shared
    return found


def _offered(themes: Themes, theme: dict[str, Any]) -> set[str]:
    """A theme's notes and the notes its lead note links with directly."""
    lead = theme["notes"][0]
    return {*theme["notes"], *(n for n, w in themes.links.get(lead, {}).items() if w >= 1.0)}


def _confirmed_notes(themes: Themes, theme: dict[str, Any], near: dict[str, float], ceiling: float,
                     wanted: dict[str, tuple[float, str]]) -> None:
    """A confirmed theme's notes and its lead note's links, nearest the question first, each
    CONFIRMED_STEP under the one before, from just under the ceiling (the KEPT-th note's score);
    not the notes that are hubs at least as broad as the lead note (linked with HUB_LINKS notes or
    more, and with as many as the lead note or more: more general than the theme) nor those less
    than CONFIRMED_NEAR as near the question as the lead note."""
    lead = theme["notes"][0]
    offered = _offered(themes, theme)
    broad = max(HUB_LINKS, _direct_links(themes, lead))
    specific = {n for n in offered if n in themes.notes and (n == lead or _direct_links(themes, n) < broad)}
    floor = CONFIRMED_NEAR * near[lead]
    notes = sorted((n for n in specific if near[n] >= floor), key=lambda n: (-near[n], n))
    for rank, doc in enumerate(notes):
        score = ceiling * (1 - CONFIRMED_STEP) ** rank
        if score > wanted.get(doc, (0.0, ""))[0]:
            wanted[doc] = (score, THEME_REASON)


def _direct_links(themes: Themes, doc: str) -> int:
    """The notes the note links with directly (weight 1: one names the other)."""
    return sum(1 for w in themes.links.get(doc, {}).values() if w >= 1.0)


def _tag(pool: Pool, themes: Themes, theme: dict[str, Any]) -> None:
    """The best passage in the pool of each of the theme's notes carries `theme <its id>`."""
    for doc in theme["notes"]:
        chunk = max((c for c in themes.chunks.get(doc, []) if c in pool.scores), key=pool.scores.__getitem__,
                    default=None)
        if chunk is not None:
            pool.reasons[chunk].append(f"{THEME_REASON} {theme['id']}")


def _one_passage_each(pool: Pool, themes: Themes) -> None:
    """A question about a theme asks for notes: each note's passages after its best weigh
    OTHER_PASSAGES of their score, so that more notes find a place."""
    best: dict[str, str] = {}
    for row_id in pool.best():
        doc = pool.rows.get(row_id, {}).get("doc_id", "")
        if doc in themes.notes and best.setdefault(doc, row_id) != row_id:
            pool.scores[row_id] *= OTHER_PASSAGES


def _note_scores(pool: Pool, themes: Themes) -> dict[str, float]:
    """Note -> the best score of its passages in the pool (notes sleep mode indexed only)."""
    found: dict[str, float] = {}
    for row_id, score in pool.scores.items():
        doc = pool.rows.get(row_id, {}).get("doc_id", "")
        if doc in themes.notes and score > found.get(doc, 0.0):
            found[doc] = score
    return found


class _Near(dict[str, float]):
    """Note -> its cosine to the question, read from the matrix product when first asked."""

    def __init__(self, rows: dict[str, int], cosines: np.ndarray) -> None:
        super().__init__()
        self.rows, self.cosines = rows, cosines

    def __missing__(self, doc: str) -> float:
        value = self[doc] = float(self.cosines[self.rows[doc]])
        return value

    def __contains__(self, doc: object) -> bool:
        return doc in self.rows

    def get(self, doc: str, default: float | None = None) -> float:  # type: ignore[override]
        return self[doc] if doc in self.rows else (default or 0.0)


def _neighbours(themes: Themes, seeds: list[str], by_note: dict[str, float], near: dict[str, float],
                weight: float, wanted: dict[str, tuple[float, str]]) -> None:
    """Notes one link (and, weighed by SECOND_HOP, two links) from a seed: the seed's score times
    the link's weight times how near the note is to the question compared with the seed."""
    for seed in seeds:
        base, own = weight * by_note[seed], max(near.get(seed, 0.0), 0.05)
        hops = [(other, w) for other, w in themes.links.get(seed, {}).items()]
        if SECOND_HOP:
            hops += [(far, w * w2 * SECOND_HOP) for other, w in themes.links.get(seed, {}).items()
                     for far, w2 in themes.links.get(other, {}).items() if far != seed]
        for other, w in hops:
            if other in near:
                score = base * w * min(max(near[other] / own, REL_FLOOR), 1.0)
                if score > wanted.get(other, (0.0, ""))[0]:
                    wanted[other] = (score, LINK_REASON)


def _matched_themes(themes: Themes, cosines: np.ndarray, query: str) -> list[tuple[dict[str, Any], float]]:
    """Themes whose match reaches THEME_FLOOR, best first, with their match."""
    strength = cosines.astype(np.float64)
    named = sorted({n for word in set(_WORD.findall(query.lower())) for n in themes.named_by.get(word, ())})
    strength[named] += WORD_BONUS
    found = np.flatnonzero(strength >= THEME_FLOOR)
    return sorted(((themes.themes[n], float(strength[n])) for n in found), key=lambda t: -t[1])


def _join(pool: Pool, themes: Themes, doc: str, score: float, current: float, vector: np.ndarray,
          held: HeldChunks | None, reason: str) -> None:
    """The note's passage nearest the question (its best in the pool, else by held vectors, else
    its first) raised to `score`."""
    if score <= current:
        return
    in_pool = [c for c in themes.chunks[doc] if c in pool.scores]
    chunk = max(in_pool, key=lambda c: pool.scores[c]) if in_pool else _nearest(themes.chunks[doc], vector, held)
    pool.add(chunk, score - pool.scores.get(chunk, 0.0), reason)


def _nearest(chunks: list[str], vector: np.ndarray, held: HeldChunks | None) -> str:
    """Of a note's passages, the one nearest the question by the held vectors (else the first)."""
    if held is None:
        return chunks[0]
    rows = [held.offset[c] for c in chunks if c in held.offset]
    if not rows:
        return chunks[0]
    cosines = (held.vectors[rows] @ vector) / held.norms[rows]
    return held.ids[rows[int(np.argmax(cosines))]]


def theme_context(items: list[RecalledItem], communities: dict[str, dict[str, Any]]) -> list[RecalledItem]:
    """The community whose theme brought notes in (their reason `theme <community id>`), as an item:
    its summary, its size and the passages it cites. None for a hub note's theme (the hub note is
    among the notes) or when no theme matched."""
    named = [r.split(" ", 1)[1] for i in items for r in i.reasons if r.startswith(f"{THEME_REASON} ")]
    cid = next((c for c in named if c in communities), None)
    if cid is None:
        return []
    row = communities[cid]
    return [RecalledItem(cid, "community", row["summary"], 0.0, title=row["title"], reasons=[THEME_REASON],
                         metadata={"members": row["member_count"], "sources": row["sources"]})]
