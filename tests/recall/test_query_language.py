"""A question MiniLM cannot read (asked in another language than English) over notes mostly in
another language than English leans on the words: the scored fusion multiplies the BM25 weight by
`Ranking.unread_query_bm25_factor`; an English question, a question too short to tell, an
embedder that reads the language, or English notes are ranked as before."""

from pathlib import Path

import numpy as np

from mnemo.ingest.embedder_choice import EmbedderChoice, record_choice
from mnemo.recall.fusion import fusion_for
from mnemo.recall.query_language import notes_not_in_english, unread_by
from mnemo.recall.rank import SIGNALS, Signals
from mnemo.recall.settings import Ranking

GERMAN = "Wann ist ein lineares Gleichungssystem lösbar, gemessen am Rang der Matrizen?"
SPANISH = "¿Cómo calculo la probabilidad de una causa sabiendo que ya ha ocurrido el efecto?"
ENGLISH = "Which elementary row operations may one apply to a matrix?"


def _signals() -> Signals:
    """Two hits: `near` has the better cosine and no BM25 score, `worded` the best BM25 score."""
    rows = [{"id": "near", "doc_id": "a"}, {"id": "worded", "doc_id": "b"}]
    matrix = np.zeros((2, len(SIGNALS)))
    matrix[0, SIGNALS.index("cosine")], matrix[1, SIGNALS.index("cosine")] = 0.70, 0.30
    matrix[1, SIGNALS.index("bm25")] = 1.0
    return Signals(rows, matrix, [("semantic",), ("lexical",)], {}, {}, {"worded": 0}, {"near": 0, "worded": 1})


SCORED = Ranking(fusion="scored")


def _first(embedder: str, query: str, ranking: Ranking = SCORED, foreign_notes: bool = True) -> str:
    fusion = fusion_for(ranking, embedder, foreign_notes)
    return fusion.ranked(_signals(), query).hits[0].row["id"]  # type: ignore[attr-defined]


def test_a_question_in_another_language_than_english_is_not_read_by_minilm() -> None:
    assert unread_by("minilm-l6-v2", GERMAN) and unread_by("minilm-l6-v2", SPANISH)
    assert unread_by("minilm-l6-v2", "费马小定理是怎么证明的？")
    assert not unread_by("minilm-l6-v2", ENGLISH)
    assert not unread_by("minilm-l6-v2", "Zeilenumformungen")  # too short to tell: read as English
    assert not unread_by("e5-small-q4", GERMAN) and not unread_by("hashing-384", SPANISH)


def test_the_scored_fusion_leans_on_the_words_for_a_question_minilm_cannot_read() -> None:
    assert _first("minilm-l6-v2", ENGLISH) == "near"  # 9 × 0.70 against 9 × 0.30 + 2.5
    assert _first("minilm-l6-v2", GERMAN) == "worded"  # 9 × 0.30 + 4 × 2.5
    learned = fusion_for(Ranking(), "minilm-l6-v2", True).otherwise  # type: ignore[attr-defined]  # what notes are ranked by
    assert learned.ranked(_signals(), SPANISH).hits[0].row["id"] == "worded"
    assert _first("e5-small-q4", GERMAN) == "near"  # e5 reads German: its cosines count as they are
    assert _first("minilm-l6-v2", GERMAN, Ranking(fusion="scored", unread_query_bm25_factor=1.0)) == "near"
    assert _first("minilm-l6-v2", GERMAN, foreign_notes=False) == "near"  # over English notes: as before


def test_notes_recorded_in_another_language_than_english_turn_the_lean_on(tmp_path: Path) -> None:
    assert not notes_not_in_english(tmp_path)  # nothing ingested yet
    record_choice(tmp_path, EmbedderChoice("minilm", "en 1.00", "English"))
    assert not notes_not_in_english(tmp_path)
    record_choice(tmp_path, EmbedderChoice("minilm", "es 0.94", "Spanish", stemmer="Spanish"))
    assert notes_not_in_english(tmp_path)
