"""Summary sentences are whole: never a heading, a task, a bare link or a lead-in ending in ':';
a hard-wrapped sentence is read whole, and each one ends with its end mark (English and Portuguese)."""

import pytest

from mnemo.sleep.text import brief, first_sentence, sentences, summarize
from tests.sleep.month_fixtures import ENGLISH, FRAGMENTS, PORTUGUESE


@pytest.mark.parametrize("vault", [ENGLISH, PORTUGUESE], ids=["english", "portuguese"])
def test_no_sentence_is_a_heading_a_task_a_link_or_a_lead_in(vault: dict[str, str]) -> None:
    for path, text in vault.items():
        found = [s.text for s in sentences(text, path)]
        assert found, path
        for sentence in found:
            assert sentence[-1] in ".!?…", (path, sentence)
            assert not any(fragment in sentence for fragment in FRAGMENTS), (path, sentence)
        summary, _ = summarize(sentences(text, path), 6)
        assert not summary.rstrip().endswith(":"), (path, summary)


def test_a_hard_wrapped_sentence_is_read_whole_and_a_lead_in_inside_a_paragraph_is_dropped() -> None:
    found = [s.text for s in sentences(ENGLISH["Daily/2024-07-02.md"], "c1")]
    assert "The soil test came back and the beds need 20 kilos of compost before we plant anything else." in found
    assert [s.text for s in sentences("We met on Monday at the harbour. Plan for closing out those ideas:", "c1")] == [
        "We met on Monday at the harbour."
    ]


def test_list_items_a_chunk_joined_on_one_line_lose_their_markers() -> None:
    joined = "- Perhaps giving is the beginning of wisdom. - Friends are better than money. - Don't trust all-purpose glue."
    assert [s.text for s in sentences(joined, "c1")] == [
        "Perhaps giving is the beginning of wisdom.", "Friends are better than money.", "Don't trust all-purpose glue."
    ]


def test_first_sentence_and_brief() -> None:
    assert first_sentence(PORTUGUESE["Notas/Plano da horta.md"].split("---\n", 2)[2]) == (
        "A horta vai ter três canteiros elevados junto ao muro sul este ano."
    )
    assert brief("## Errands for the day\n- Gym\n- Call mom\nTo buy:\n- [ ] milk") == "Gym; Call mom."
    assert brief("## Only a heading\n- [ ] a task") == ""
