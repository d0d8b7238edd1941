"""A question the embedder cannot read: asked in a language other than English, of an embedder
that reads English alone (MiniLM). Where most of the notes are in a language other than English
too (their full-text index stems it: `ingest.embedder_choice`), the cosines of such a question
say little and its words may well be the notes' own, so the scored fusion leans on the words:
the BM25 weight is multiplied by `Ranking.unread_query_bm25_factor`
(benchmarks/multilingual_lexical.py; docs/EVALUATION.md, "Notes in other languages"). Over
English notes such a question keeps the usual weights (its words are not the notes'). A query
too short to tell its language from is read as English."""

from pathlib import Path

from mnemo.ingest.embedder_choice import recorded_choice
from mnemo.ingest.languages import text_language

ENGLISH_ONLY = frozenset({"minilm-l6-v2"})  # embedder names that read English alone


def unread_by(embedder: str, query: str) -> bool:
    """Whether `query` is in a language `embedder` cannot read."""
    if embedder not in ENGLISH_ONLY:
        return False
    language, _ = text_language(query)
    return language not in (None, "en")


def notes_not_in_english(namespace_root: Path) -> bool:
    """Whether the namespace's notes are mostly in a language other than English, as the last
    ingest recorded it (their full-text index stems that language)."""
    choice = recorded_choice(namespace_root)
    return choice is not None and choice.stemmer != "English"
