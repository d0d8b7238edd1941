"""Dedup and alias resolution: what dedup knows of an entity, the normal forms of its names, and
the score of a pair (`mnemo.sleep.blocking` chooses the pairs and sorts them into bands).

A pair's score combines string similarity (rapidfuzz), abbreviation rules,
shared neighbours, vector cosine and structural evidence (a name listed as the other's
alias, a wikilink whose display text is the other's name). Acronyms and short names only
reach the merge band with context or evidence, never on string or cosine alone.
"""

import math
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz

from mnemo.documents import normalize_name as _normalize

# A pair's score reads each of its two entities' names in several normal forms, and an entity is in
# many pairs (69,414 candidate pairs among 3,317 entities in a 10k-note vault): each form is computed
# once per name and kept, up to this many names per form.
_NAMES_KEPT = 1 << 16
normalize_name = lru_cache(maxsize=_NAMES_KEPT)(_normalize)
_WIKILINK_DISPLAY = re.compile(r"\[\[[^\]|]+\|([^\]]+)\]\]")


@dataclass
class EntityRecord:
    """What dedup knows of one entity."""

    id: str
    kind: str
    name: str
    aliases: tuple[str, ...] = ()
    neighbours: frozenset[str] = frozenset()
    display_names: frozenset[str] = frozenset()
    vector: np.ndarray | None = None
    has_page: bool = False  # the entity has a note of its own (not only implied by links)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


@dataclass(frozen=True)
class PairScore:
    a: str
    b: str
    score: float
    reasons: tuple[str, ...]


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


_ROMANCE_PLURALS = (("ais", "al"), ("eis", "el"), ("ois", "ol"), ("oes", "ao"), ("aes", "ao"), ("ns", "m"))


def romance_singular(word: str) -> str:
    """The singular of a Portuguese or Spanish plural, accents removed: 'operacionais' -> 'operacional',
    'decisoes' -> 'decisao', 'flores' -> 'flor', 'redes' -> 'red'; other words unchanged."""
    if len(word) > 4:
        for plural, one in _ROMANCE_PLURALS:
            if word.endswith(plural):
                return word[: -len(plural)] + one
        if word.endswith("es") and word[-3] in "rlnzd":
            return word[:-2]
    return word


@lru_cache(maxsize=_NAMES_KEPT)
def name_keys(name: str) -> frozenset[str]:
    """Normalized spellings a name is known by: full, singular (English, or Portuguese and Spanish),
    last path segment."""
    keys = set()
    for part in {name, name.rsplit("/", 1)[-1]}:
        norm = normalize_name(part)
        if norm:
            keys.add(norm)
            keys.add(" ".join(singular(w) for w in norm.split()))
            keys.add(" ".join(singular(romance_singular(w)) for w in norm.split()))
    return frozenset(keys)


@lru_cache(maxsize=_NAMES_KEPT)
def initials(name: str) -> str:
    words = _name_words(name)
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


def _abbreviation(a: EntityRecord, b: EntityRecord) -> str:
    """'acronym' (MW / My Words), 'prefix' (Rect / Rectangle, pengx17 / Peng Xiao, bensu / Sebastian Bensusan),
    'contained' (Tool / Whiteboard tool) or ''."""
    for x in a.names:
        for y in b.names:
            short, long = sorted((_tail(x), _tail(y)), key=len)
            if not short or short == long:
                continue
            if short.replace(" ", "") == initials(long) and len(short) >= 2:
                return "acronym"
            if " " not in short and len(short) >= 3 and any(
                    len(w) >= 3 and (w.startswith(short) or short.startswith(w)) for w in _name_words(long)):
                return "prefix"
            if frozenset(_name_words(short)) < frozenset(_name_words(long)):
                return "contained"
    return ""


@lru_cache(maxsize=_NAMES_KEPT)
def _tail(name: str) -> str:
    """The normal form of a name's last path segment."""
    return normalize_name(name.rsplit("/", 1)[-1])


@lru_cache(maxsize=_NAMES_KEPT)
def _name_words(name: str) -> tuple[str, ...]:
    """The words of a name's normal form."""
    return tuple(normalize_name(name).split())


@lru_cache(maxsize=_NAMES_KEPT)
def _exact_keys(name: str) -> frozenset[str]:
    """Spellings that are the same name, not merely a related one: full and last path segment, its words
    in any order but its numbers in theirs ('Exercise 1, part 2' is not 'Exercise 2, part 1')."""
    return frozenset(k for part in {name, name.rsplit("/", 1)[-1]} if (k := _words_any_order(_name_words(part))))


def _words_any_order(words: tuple[str, ...]) -> str:
    numbers = " ".join(w for w in words if w.isdigit())
    return " ".join(sorted(words)) + (f" #{numbers}" if numbers else "")


def _name_similarity(a: EntityRecord, b: EntityRecord) -> tuple[float, str]:
    """Best fuzzy similarity of any two names, and 'same name' / 'singular and plural' / ''."""
    best, match = 0.0, ""
    for x in a.names:
        for y in b.names:
            if _exact_keys(x) & _exact_keys(y):
                match = "same name"
            elif not match and name_keys(x) & name_keys(y):
                match = "singular and plural"
            short_x, short_y = _without_shared_frame(*_without_shared_namespace(x, y))
            best = max(best, fuzz.token_sort_ratio(short_x, short_y) / 100.0)
    return best, match


def _without_shared_namespace(x: str, y: str) -> tuple[str, str]:
    """'Bar/Bold toggle' and 'Bar/Italic toggle' are compared as 'Bold toggle' and 'Italic toggle':
    siblings in one namespace share their path, not their identity."""
    if "/" not in x or "/" not in y:
        return x, y
    px, py = x.lower().split("/"), y.lower().split("/")
    shared = 0
    while shared < min(len(px), len(py)) - 1 and px[shared] == py[shared]:
        shared += 1
    if not shared:
        return x, y
    return "/".join(x.split("/")[shared:]), "/".join(y.split("/")[shared:])


def _without_shared_frame(x: str, y: str) -> tuple[str, str]:
    """'Project Blue Heron' and 'Project Iron Garden' are compared as 'blue heron' and 'iron garden':
    a leading word both names share is their frame, not their identity."""
    wx, wy = _name_words(x), _name_words(y)
    while len(wx) > 1 and len(wy) > 1 and wx[0] == wy[0]:
        wx, wy = wx[1:], wy[1:]
    return " ".join(wx), " ".join(wy)


# Scores of the evidence kinds. The merge band starts at 0.9 (SleepConfig.merge_threshold), review at 0.6.
_SAME_NAME = 0.95       # the same full name (a declared alias counts as a name)
_NAME_VARIANT = 0.92    # the same up to number, accents or path, when one of the two is not a note
_TWO_NOTES = 0.85       # two notes are never merged automatically: review at most
_DISPLAYED = 0.8        # a link's display text is a weak alias of its target: review, never a merge
_ABBREVIATION = 0.7     # an acronym, or a short name of a person
_BELOW_REVIEW = 0.55    # what is shown to be related, not the same


def score_pair(a: EntityRecord, b: EntityRecord) -> PairScore:
    """How sure we are that two entities are the same, in [0, 1], with the reasons.

    A note's title is an identity its owner declared: two notes are two things, and names alone
    bring them to review at most (the same name or singular/plural). Automatic merges take an
    entity that is not a note (a link target nobody wrote, a chat speaker, an LLM entity) into a
    note or another such entity with the same name, a declared alias, or a variant in number,
    accents or path. A link's display text is a weak alias of its target: review, never a merge.
    A topic is not the same as a longer name that contains it ('Ubuntu' / 'Switching to Ubuntu');
    a person's short name ('bensu' / 'Sebastian Bensusan') and an acronym are, with shared context.
    Names that differ in one unlike word, or in their numbers, are siblings."""
    if a.kind != b.kind:
        return PairScore(a.id, b.id, 0.0, ("incompatible types",))
    two_notes = a.has_page and b.has_page
    similarity, match = _name_similarity(a, b)
    shared = len(a.neighbours & b.neighbours) / max(1, len(a.neighbours | b.neighbours))
    cosine = _cosine(a.vector, b.vector)
    reasons: list[str] = []
    score = similarity * 0.8 if similarity >= 0.9 else min(similarity * 0.8, _BELOW_REVIEW)
    if match:
        score = max(score, _name_match_score(a, b, match, two_notes))
        reasons.append(match + (" of two notes" if two_notes else ""))
    abbreviation = "" if match else _abbreviation(a, b)
    short_name = abbreviation == "acronym" or (abbreviation in ("prefix", "contained") and a.kind == "person")
    if short_name:
        score = max(score, _ABBREVIATION)
    if abbreviation:
        reasons.append(abbreviation if short_name else f"{abbreviation}: a narrower name")
    if _displayed(a, b) and not two_notes:
        score = max(score, _DISPLAYED)
        reasons.insert(0, "wikilink display text")
    score += 0.25 * shared + (0.1 * max(0.0, cosine - 0.7) / 0.3 if cosine is not None else 0.0)
    if shared:
        reasons.append(f"shared neighbours {shared:.2f}")
    if short_name and shared >= 0.2 and not two_notes:
        score = max(score, 0.9 + 0.1 * shared)
        reasons.append("short name in the same context")
    score = min(score, _ceiling(a, b, abbreviation, short_name, match, two_notes, reasons))
    reasons.append(f"name similarity {similarity:.2f}")
    return PairScore(a.id, b.id, round(min(1.0, score), 4), tuple(reasons))


def _ceiling(a: EntityRecord, b: EntityRecord, abbreviation: str, short_name: bool, match: str,
             two_notes: bool, reasons: list[str]) -> float:
    """The highest score the evidence against the pair allows (noted among the reasons)."""
    numbers_a, numbers_b = _numbers(a), _numbers(b)
    if numbers_a and numbers_b and not numbers_a & numbers_b:
        reasons.append("different numbers")
        return 0.5
    if bool(numbers_a) != bool(numbers_b) and abbreviation in ("contained", "prefix"):
        reasons.append("numbered variant")
        return _BELOW_REVIEW
    if _siblings(a.name, b.name):
        reasons.append("one different word")
        return _BELOW_REVIEW
    if abbreviation and not short_name:
        return _BELOW_REVIEW
    if two_notes:
        return _TWO_NOTES if match else _BELOW_REVIEW
    return 1.0


def _displayed(a: EntityRecord, b: EntityRecord) -> bool:
    """Whether a link to one of the two shows the other's name as its display text."""
    return bool(_normal_forms(a.names) & _normal_forms(b.display_names)
                or _normal_forms(b.names) & _normal_forms(a.display_names))


def _name_match_score(a: EntityRecord, b: EntityRecord, match: str, two_notes: bool) -> float:
    """Same full name 0.95; the same up to number or path: 0.92 when one is not a note; two notes
    reach review at most."""
    if two_notes:
        return _TWO_NOTES
    if match == "same name" and any(normalize_name(x) == normalize_name(y) for x in a.names for y in b.names):
        return _SAME_NAME
    return _NAME_VARIANT


def _siblings(x: str, y: str) -> bool:
    """'Project Iron Engine' / 'Project Iron Heron', 'Vera Oliveira' / 'Yara Oliveira': the same frame with
    one word swapped for an unlike one names a sibling, not the same thing (a typo keeps the words alike)."""
    wx, wy = _name_words(x), _name_words(y)
    if len(wx) != len(wy) or len(wx) < 2:
        return False
    differ = [(p, q) for p, q in zip(wx, wy) if p != q]
    return len(differ) == 1 and fuzz.ratio(*differ[0]) < 80


def _numbers(record: EntityRecord) -> frozenset[str]:
    """The numbers in an entity's names ("Sprint 4", "2023 Japan trip"): different numbers, different things."""
    return _numbers_in(record.names)


@lru_cache(maxsize=_NAMES_KEPT)
def _numbers_in(names: tuple[str, ...]) -> frozenset[str]:
    """The numbers among the words of the names."""
    return frozenset(w for n in names for w in _name_words(n) if w.isdigit())


@lru_cache(maxsize=_NAMES_KEPT)
def _normal_forms(names: tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """The names' normal forms."""
    return frozenset(normalize_name(n) for n in names)


def _cosine(x: np.ndarray | None, y: np.ndarray | None) -> float | None:
    if x is None or y is None:
        return None
    return float(np.dot(x, y)) / max(1e-9, math.sqrt(float(np.dot(x, x)) * float(np.dot(y, y))))


_FOR = {
    "same name of two notes": "the same name, in two notes",
    "singular and plural of two notes": "the same name but for number, in two notes",
    "wikilink display text": "a link shows one's name for the other",
    "acronym": "one is an acronym of the other",
    "prefix": "a short name of the other",
    "contained": "a short name of the other",
    "same name": "the same name",
    "singular and plural": "the same name but for number",
}


def review_reason(pair: PairScore) -> str:
    """One line a person can decide on: the strongest evidence for the pair, and its context."""
    first = next((_FOR[r] for r in pair.reasons if r in _FOR), "")
    if not first:
        similar = next((r for r in pair.reasons if r.startswith("name similarity")), "")
        first = f"names alike ({similar.split()[-1]})" if similar else "names alike"
    shared = next((r for r in pair.reasons if r.startswith("shared neighbours")), "")
    return first + (f"; they share {round(100 * float(shared.split()[-1]))}% of their links" if shared else "")


def display_names(surfaces: list[tuple[str, str]]) -> dict[str, set[str]]:
    """entity id -> display texts of wikilinks to it, from (entity id, mention surface) pairs."""
    found: dict[str, set[str]] = defaultdict(set)
    for eid, surface in surfaces:
        for match in _WIKILINK_DISPLAY.finditer(surface or ""):
            found[eid].add(match.group(1).strip())
    return found
