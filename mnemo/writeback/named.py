"""Notes that name another note's title in plain words without linking it.

A passage that says "the regatta" where a note is titled "Regatta" points at that note as surely
as a link would, in the owner's own words. Titles are matched as whole words, any case, up to
`MAX_TITLE_WORDS` words; a title of digits only (a day, a number) names nothing.
"""

import re
from collections import defaultdict

MAX_TITLE_WORDS = 6
_WORD = re.compile(r"\w+")


def title_words(title: str) -> tuple[str, ...]:
    return tuple(word.lower() for word in _WORD.findall(title))


def _nameable(words: tuple[str, ...]) -> bool:
    return 0 < len(words) <= MAX_TITLE_WORDS and len("".join(words)) >= 3 and not "".join(words).isdigit()


def named_notes(texts: dict[str, str], titles: dict[str, str]) -> dict[str, set[str]]:
    """note id -> the other notes whose title its text names."""
    by_words: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for note, title in titles.items():
        words = title_words(title)
        if _nameable(words):
            by_words[words].add(note)
    found: dict[str, set[str]] = defaultdict(set)
    for note, text in texts.items():
        said = [word.lower() for word in _WORD.findall(text)]
        for start in range(len(said)):
            for size in range(1, min(MAX_TITLE_WORDS, len(said) - start) + 1):
                found[note].update(by_words.get(tuple(said[start:start + size]), set()) - {note})
    return {note: others for note, others in found.items() if others}
