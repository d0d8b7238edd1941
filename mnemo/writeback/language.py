"""Whether a note is written in English, for what mnemo can only say in English words.

A summary built from the graph's relation names ("Out of Control created by Kevin Kelly") is English
template text: it is written only into a note whose own words are English, told by the share of
its words that are common English function words.
"""

import re

_WORD = re.compile(r"[^\W\d_]+")
_ENGLISH = frozenset(
    "the and of to in is that for it with as was on be are this by at from or have an not but".split()
)
_MIN_SHARE = 0.08  # English prose runs at 20-30 %; another language's text at a few percent at most
_MIN_WORDS = 8


def looks_english(text: str, short: bool = False) -> bool:
    """True when enough of the text's words are English function words; `short` for a text of too
    few words to tell (the caller passes what the vault as a whole looks like)."""
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < _MIN_WORDS:
        return short
    return sum(1 for w in words if w in _ENGLISH) / len(words) >= _MIN_SHARE
