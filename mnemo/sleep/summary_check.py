"""A check of abstractive writing against its sources: the sentences that name an entity the
sources do not name (case-, accent- and punctuation-insensitive, on word boundaries)."""

import re
from collections.abc import Collection

from mnemo.documents import NamedWords, normalize_name

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
MIN_NAME = 4  # shorter names ("AI", "Bob") match too much ordinary text to judge by


def unsupported_names(summary: str, sources: list[str], names: Collection[str]) -> list[tuple[str, list[str]]]:
    """(sentence, names) for each sentence of `summary` that names one of `names` that no source names."""
    judged = [name for name in names if len(normalize_name(name)) >= MIN_NAME]
    if not judged:
        return []
    in_sources = NamedWords(" \n ".join(sources))
    found = []
    for sentence in _SENTENCE_END.split(summary.strip()):
        words = NamedWords(sentence)
        named = sorted({name for name in judged if words.names(name) and not in_sources.names(name)})
        if named:
            found.append((sentence, named))
    return found
