"""A question the embedder cannot read: asked in a language other than English, of an embedder
that reads English alone (MiniLM). Its cosines then say little, so the scored fusion leans on
the words instead: the BM25 weight is multiplied by `Ranking.unread_query_bm25_factor`
(benchmarks/multilingual_lexical.py; docs/EVALUATION.md, "Notes in other languages").
A query too short to tell its language from is read as English."""

from mnemo.ingest.languages import text_language

ENGLISH_ONLY = frozenset({"minilm-l6-v2"})  # embedder names that read English alone


def unread_by(embedder: str, query: str) -> bool:
    """Whether `query` is in a language `embedder` cannot read."""
    if embedder not in ENGLISH_ONLY:
        return False
    language, _ = text_language(query)
    return language not in (None, "en")
