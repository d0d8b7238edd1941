"""A hub whose own note is the search's best note is what the question is about even when the
hub's name and vector do not match the question (a note titled by a file name, a question in
another language): its notes take the places after the best notes. A note that links with more
than LED_LINKS notes is an index of everything and confirms nothing."""

import numpy as np

from mnemo.recall.linked import LED_LINKS, Themes, Weights, linked_round
from mnemo.recall.rank import Pool

HUB, MEMBERS, OTHERS = "1716491727-migracion", [f"member{n}" for n in range(4)], [f"other{n}" for n in range(8)]
QUESTION = np.array([1.0, 0.0], dtype=np.float32)


def _themes(extra_links: int = 0) -> Themes:
    """The hub note links four members (nearer the question the higher their number) and
    `extra_links` notes of their own; its theme's vector is far from the question (its name says
    nothing the question says), so no theme matches the question."""
    extra = [f"extra{n}" for n in range(extra_links)]
    notes = [HUB, *MEMBERS, *OTHERS, *extra]
    near = {m: 0.5 + 0.05 * n for n, m in enumerate(MEMBERS)}
    rows = [[near.get(d, 0.6), 0.8] for d in notes] + [[0.0, 1.0]]
    vectors = np.array(rows, dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    links = {HUB: dict.fromkeys([*MEMBERS, *extra], 1.0), **{m: {HUB: 1.0} for m in [*MEMBERS, *extra]}}
    theme = {"id": f"hub:{HUB}", "title": HUB, "kind": "hub", "words": [HUB], "notes": [HUB, *MEMBERS]}
    return Themes({d: n for n, d in enumerate(notes)}, {d: [f"{d}#0"] for d in notes}, links, [theme], vectors,
                  hub_of={HUB: theme})


def _pool(best: str) -> Pool:
    """`best` first, then the other notes, each a little lower (one passage a note)."""
    pool = Pool(60)
    for rank, doc in enumerate([best, *OTHERS]):
        pool.add(f"{doc}#0", 10.0 - rank * 0.2, "semantic", {"id": f"{doc}#0", "doc_id": doc})
    return pool


def _order(pool: Pool) -> list[str]:
    return [c.split("#")[0] for c in pool.best()]


def test_a_hub_whose_note_is_the_best_note_brings_its_notes_after_the_best_notes() -> None:
    pool = _pool(HUB)
    linked_round(pool, _themes(), QUESTION, "¿qué he apuntado sobre mover procesos?", Weights(0.0, 1.0), None)
    order = _order(pool)
    assert order[:3] == [HUB, "other0", "other1"]  # the best notes keep their places
    assert order[3:7] == MEMBERS[::-1]  # then the hub's notes, nearest the question first
    assert order[7:] == OTHERS[2:]


def test_a_hub_note_that_is_second_confirms_nothing() -> None:
    pool = _pool("other0")
    pool.add(f"{HUB}#0", 9.9, "semantic", {"id": f"{HUB}#0", "doc_id": HUB})
    linked_round(pool, _themes(), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    assert _order(pool)[:4] == ["other0", HUB, "other1", "other2"]


def test_a_note_linked_with_more_than_led_links_notes_is_an_index_and_confirms_nothing() -> None:
    pool = _pool(HUB)
    linked_round(pool, _themes(extra_links=LED_LINKS), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    assert _order(pool)[:len(OTHERS) + 1] == [HUB, *OTHERS]  # no theme: the search's order stands


def test_no_hub_is_confirmed_when_themes_weigh_nothing() -> None:
    pool = _pool(HUB)
    linked_round(pool, _themes(), QUESTION, "what have I got", Weights(0.0, 0.0), None)
    assert _order(pool) == [HUB, *OTHERS]
