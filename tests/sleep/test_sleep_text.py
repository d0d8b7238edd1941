"""Extractive summaries: markup-free sentences weighted toward names, numbers and outcomes, and
maximal marginal relevance over word overlap."""

import random

from mnemo.sleep.text import Sentence, mmr, sentences, summarize, words


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


def test_markup_is_stripped_from_summary_sentences() -> None:
    seen = [
        ('See this in Logseq: "(?m)^\\s(?:[-+]|+)\\s+" Turns out most frameworks parse lists alike.',
         "See this in Logseq: Turns out most frameworks parse lists alike."),
        ("- [ ] Write a line of Rust\n- [x] Wash the dishes at night before bed",
         ""),  # tasks are not thoughts written down
        ("- **Michael** met the team ![image.png](../assets/team_0.png){:height 560, :width 960} in Hangzhou",
         "Michael met the team in Hangzhou."),
        ("As the docs say ((6103e488-22d4-4751-b27a-69b278067c26)) blocks can be embedded {{embed [[page]]}} anywhere",
         "As the docs say blocks can be embedded anywhere."),
        ("human: which compounds in dog saliva fight bacteria?\nassistant: Lysozyme and lactoferrin are two of them.",
         "which compounds in dog saliva fight bacteria?|Lysozyme and lactoferrin are two of them."),
        ("TODO Fix the `.gitignore` file so the [Git plugin](https://example.org/git) stops failing",
         ""),
        ("Ship the `.gitignore` fix so the [Git plugin](https://example.org/git) stops failing",
         "Ship the .gitignore fix so the Git plugin stops failing."),
        ("Most apples are {{cloze red \\\\ color}} and most pears {{cloze green}} in autumn.",
         "Most apples are red and most pears green in autumn."),
        ("```python\nprint('hello world from code')\n```\ntype:: [[Feature]]\n| a | b |\nThe export finished in 3 minutes.",
         "The export finished in 3 minutes."),
    ]
    for raw, expected in seen:
        assert "|".join(s.text for s in sentences(raw, "c1")) == expected


def test_sentences_with_names_numbers_and_outcomes_are_preferred() -> None:
    boilerplate = "click the button to open the settings page of the app"
    telling = "decided with Priya to move the launch to 12 March"
    pool = sentences(f"{boilerplate}.\n{telling}.", "c1")
    assert [s.text for s in mmr(pool, 1)] == [telling + "."]
    assert summarize(pool, 1)[0].startswith("decided with Priya")
