"""Extractive selection for summaries: maximal marginal relevance over word overlap."""

import random

from mnemo.sleep.text import Sentence, mmr, summarize, words


def _by_definition(candidates: list[Sentence], k: int, diversity: float = 0.5) -> list[Sentence]:
    """MMR as defined: each pick maximizes relevance less overlap with every sentence chosen so far,
    recomputed from scratch; a pick overlapping a chosen one by more than 0.8 is dropped."""
    pool = sorted(candidates, key=lambda s: (-s.relevance, s.chunk_id, s.text))
    chosen: list[Sentence] = []

    def overlap(s: Sentence) -> float:
        return max((len(words(s.text) & words(c.text)) / max(1, len(words(s.text) | words(c.text))) for c in chosen), default=0.0)

    while pool and len(chosen) < k:
        best = max(pool, key=lambda s: (1 - diversity) * s.relevance - diversity * overlap(s))
        pool.remove(best)
        if not (chosen and overlap(best) > 0.8):
            chosen.append(best)
    return chosen


def test_the_most_relevant_sentence_comes_first_and_a_near_copy_of_it_is_left_out() -> None:
    pool = [
        Sentence("Met Alice at the harbour to plan the garden budget", "c1", 3.0),
        Sentence("Met Alice at the harbour to plan the garden budget again", "c2", 2.9),
        Sentence("The train to Porto was late by an hour", "c3", 1.0),
        Sentence("Finished reading the book about bridges tonight", "c4", 1.0),
    ]
    picked = [s.chunk_id for s in mmr(pool, 3)]
    assert picked[0] == "c1" and sorted(picked) == ["c1", "c3", "c4"]  # c2 repeats c1, more relevant than c3 or c4 as it is
    text, cited = summarize(pool, 2)
    assert text.startswith("Met Alice at the harbour") and "again" not in text and len(cited) == 2


def test_selection_equals_the_definition_on_generated_pools() -> None:
    rng = random.Random(11)
    vocabulary = [f"word{i}" for i in range(40)]
    for _ in range(300):
        pool = [Sentence(" ".join(rng.choices(vocabulary, k=rng.randint(4, 12))), f"c{rng.randint(0, 9)}", float(rng.randint(1, 4)))
                for _ in range(rng.randint(0, 30))]
        k = rng.randint(1, 7)
        assert mmr(pool, k) == _by_definition(pool, k)
