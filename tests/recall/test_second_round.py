"""Recall's second round: the first round's best hit expands the query, so a passage that
shares no word with the question, only with the passage that answers its first half, is found."""

from dataclasses import replace
from pathlib import Path

import pytest

from mnemo.client import MemoryClient
from mnemo.recall.second_round import expansion, stop_words, terms_of
from mnemo.recall.settings import RecallSettings
from tests.support import daily_notes_workspace

DAYS = {
    "2024-01-02": "Caroline told me she moved here from her home country four years ago.",
    "2024-01-03": "The necklace is from my grandmother back in my home country, Sweden.",
    "2024-01-04": "Caroline moved the sofa into the living room and then moved it back.",
    "2024-01-05": "Caroline moved her piano lessons to Thursday.",
    "2024-01-07": "Baked bread with rye flour; the crust came out too dark.",
}
QUESTION = "Where did Caroline move from?"


def test_expansion_takes_the_words_that_set_the_best_hits_apart() -> None:
    best = ["Caroline moved here from her home country four years ago."]
    others = [*best, "Caroline moved the sofa.", "Caroline moved her piano lessons."]
    words = expansion(QUESTION, best, others, 3)
    assert "caroline" not in words and "from" not in words
    assert set(words) <= set(terms_of(best[0])) and "country" in words


def test_the_answer_is_reached_only_through_the_first_hit(tmp_path: Path) -> None:
    workspace, _ = daily_notes_workspace(tmp_path, DAYS)
    settings = RecallSettings(random_share=0.0, per_note=0)
    answer = "Sweden"

    def top(mode: str, weight: float, k: int = 3) -> list[str]:
        chosen = replace(settings, ranking=replace(settings.ranking, second_round_weight=weight,
                                                   second_round_docs=1))
        client = MemoryClient("test", workspace.config_path, settings=chosen)
        return [i.text for i in client.recall(QUESTION, k=k, mode=mode).items]  # type: ignore[arg-type]

    assert not any(answer in text for text in top("deliberate", 0.0))
    found = top("deliberate", 1.0)
    assert any(answer in text for text in found) and "home country four years" in found[0]
    assert not any(answer in text for text in top("eager", 1.0))  # eager runs it only when told to


def test_the_stop_words_are_scikit_learns_english_list() -> None:
    """Recall reads them from a file of its own; they match the list the second round was measured with."""
    text = pytest.importorskip("sklearn.feature_extraction.text")
    assert stop_words() == frozenset(text.ENGLISH_STOP_WORDS)
