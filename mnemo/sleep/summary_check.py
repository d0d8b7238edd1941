"""A check of abstractive writing against its sources: the sentences that name an entity the
sources do not name (case-, accent- and punctuation-insensitive, on word boundaries)."""

import re
from collections.abc import Collection

from mnemo.documents import normalize_name

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MIN_NAME = 4  # shorter names ("AI", "Bob") match too much ordinary text to judge by


def _padded(text: str) -> str:
    return f" {normalize_name(text)} "


def unsupported_names(summary: str, sources: list[str], names: Collection[str]) -> list[tuple[str, list[str]]]:
    """(sentence, names) for each sentence of `summary` that names one of `names` that no source names."""
    keys = {key: name for name in names if len(key := normalize_name(name)) >= MIN_NAME}
    if not keys:
        return []
    in_sources = _padded(" \n ".join(sources))
    found = []
    for sentence in _SENTENCE_END.split(summary.strip()):
        words = _padded(sentence)
        named = sorted({name for key, name in keys.items() if f" {key} " in words and f" {key} " not in in_sources})
        if named:
            found.append((sentence, named))
    return found
