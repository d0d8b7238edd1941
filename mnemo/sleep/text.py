"""Extractive summarization helpers: sentences, salience-ranked selection deduplicated by MMR."""

import re
from dataclasses import dataclass

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+")
_MARKUP = re.compile(r"!?\[\[([^\]|]+)\|?([^\]]*)\]\]|[#*_>`]|^\s*[-+]\s+", re.MULTILINE)


@dataclass(frozen=True)
class Sentence:
    text: str
    chunk_id: str
    relevance: float


def clean(text: str) -> str:
    """Prose without wikilink brackets, emphasis and list markers."""
    return _MARKUP.sub(lambda m: (m.group(2) or m.group(1) or "") if m.group(1) else "", text).strip()


def sentences(text: str, chunk_id: str, relevance: float = 1.0) -> list[Sentence]:
    found = []
    for part in _SENTENCE.split(clean(text)):
        part = " ".join(part.split())
        if len(part.split()) >= 4:
            found.append(Sentence(part[:400], chunk_id, relevance))
    return found


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def mmr(candidates: list[Sentence], k: int, diversity: float = 0.5) -> list[Sentence]:
    """Pick k sentences by maximal marginal relevance (word overlap as the similarity)."""
    pool = sorted(candidates, key=lambda s: (-s.relevance, s.chunk_id, s.text))
    chosen: list[Sentence] = []
    bags = [words(s.text) for s in pool]
    overlap = [0.0] * len(pool)  # each candidate's largest overlap with a chosen sentence, kept as they are chosen
    left = list(range(len(pool)))
    while left and len(chosen) < k:
        best = max(left, key=lambda i: (1 - diversity) * pool[i].relevance - diversity * overlap[i])
        left.remove(best)
        if chosen and overlap[best] > 0.8:
            continue
        chosen.append(pool[best])
        bag = bags[best]
        for i in left:
            overlap[i] = max(overlap[i], len(bags[i] & bag) / max(1, len(bags[i] | bag)))
    return chosen


def summarize(candidates: list[Sentence], k: int = 3) -> tuple[str, list[str]]:
    """An extractive summary and the chunk ids it cites."""
    picked = mmr(candidates, k)
    return " ".join(s.text for s in picked), sorted({s.chunk_id for s in picked})
