"""A theme whose lead note the search already put among its best notes is what the question is
about: its notes, nearest the question first, take the places after the best notes, ahead of
passages that only match words. So is a hub whose own note is the search's best note, even when
the hub's name and vector do not match the question (a note titled by a file name, a question in
another language), unless that note links with more than LED_LINKS notes (an index of
everything). A theme matched by its vector alone competes as before."""

import numpy as np

from mnemo.recall.linked import LED_LINKS, Themes, Weights, linked_round
from mnemo.recall.rank import Pool

HUB, MEMBERS, OTHERS = "hub", [f"member{n}" for n in range(6)], [f"other{n}" for n in range(6)]
INDEX, FAR = "index", "far"
QUESTION = np.array([1.0, 0.0], dtype=np.float32)


def _themes() -> Themes:
    """The hub note links six members (nearer the question the higher their number), an index note
    that links the six other notes and the far note too (near the question, but a hub as broad as
    the hub note: eight links) and a note far from the question; one hub theme, whose vector
    matches the question."""
    notes = [HUB, *MEMBERS, *OTHERS, INDEX, FAR]
    near = {**{m: 0.5 + 0.05 * n for n, m in enumerate(MEMBERS)}, INDEX: 0.95, FAR: 0.05}
    rows = [[near.get(d, 0.6), 0.8] for d in notes] + [[0.9, 0.43]]
    vectors = np.array(rows, dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    links = {HUB: dict.fromkeys([*MEMBERS, INDEX, FAR], 1.0), **{m: {HUB: 1.0} for m in [*MEMBERS, FAR]},
             INDEX: dict.fromkeys([HUB, *OTHERS, FAR], 1.0)}
    theme = {"id": f"hub:{HUB}", "title": "Hub", "kind": "hub", "words": ["Hub"], "notes": [HUB, *MEMBERS, INDEX]}
    return Themes({d: n for n, d in enumerate(notes)}, {d: [f"{d}#0"] for d in notes}, links, [theme], vectors)


def _pool(best: str) -> Pool:
    """`best` first, then the six other notes, each a little lower (one passage a note)."""
    pool = Pool(60)
    for rank, doc in enumerate([best, *OTHERS]):
        pool.add(f"{doc}#0", 10.0 - rank * 0.2, "semantic", {"id": f"{doc}#0", "doc_id": doc})
    return pool


def _order(pool: Pool) -> list[str]:
    return [c.split("#")[0] for c in pool.best()]


def test_a_theme_whose_lead_note_is_among_the_best_brings_its_notes_nearest_first_after_them() -> None:
    pool = _pool(HUB)
    linked_round(pool, _themes(), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    order = _order(pool)
    assert order[:3] == [HUB, "other0", "other1"]  # the best notes keep their places
    assert order[3:9] == MEMBERS[::-1]  # then the theme's notes, nearest the question first
    assert order[9:] == ["other2", "other3", "other4", "other5"]
    assert INDEX not in order and FAR not in order  # a hub itself, and a note far from the question, stay out


def test_a_member_that_is_a_narrower_hub_than_the_lead_note_is_one_of_the_theme_s_notes() -> None:
    themes = _themes()
    for other in OTHERS[:4]:  # member0 links five notes: a hub, but narrower than the hub note (eight)
        themes.links[MEMBERS[0]][other] = themes.links.setdefault(other, {})[MEMBERS[0]] = 1.0
    pool = _pool(HUB)
    linked_round(pool, themes, QUESTION, "what have I got", Weights(0.0, 1.0), None)
    assert _order(pool)[3:9] == MEMBERS[::-1]


def test_a_theme_matched_by_its_vector_alone_offers_its_notes_in_its_own_order() -> None:
    pool = _pool("other5")  # the hub note is not among the search's notes: nothing confirms the theme
    linked_round(pool, _themes(), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    order = _order(pool)
    assert order[:3] == ["other5", "other0", "other1"]
    members = [d for d in order if d in MEMBERS]
    assert members[0] == MEMBERS[0]  # central first, as the theme lists them, not nearest first


def _unmatched_hub(extra_links: int = 0) -> Themes:
    """The hub note links four members (nearer the question the higher their number) and
    `extra_links` notes of their own; its theme's vector is far from the question (its name says
    nothing the question says), so no theme matches the question."""
    extra = [f"extra{n}" for n in range(extra_links)]
    notes = [HUB, *MEMBERS[:4], *OTHERS, *extra]
    near = {m: 0.5 + 0.05 * n for n, m in enumerate(MEMBERS)}
    rows = [[near.get(d, 0.6), 0.8] for d in notes] + [[0.0, 1.0]]
    vectors = np.array(rows, dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    links = {HUB: dict.fromkeys([*MEMBERS[:4], *extra], 1.0), **{m: {HUB: 1.0} for m in [*MEMBERS[:4], *extra]}}
    theme = {"id": f"hub:{HUB}", "title": "1716491727-migracion", "kind": "hub", "words": ["1716491727-migracion"],
             "notes": [HUB, *MEMBERS[:4]]}
    return Themes({d: n for n, d in enumerate(notes)}, {d: [f"{d}#0"] for d in notes}, links, [theme], vectors,
                  hub_of={HUB: theme})


def test_a_hub_whose_note_is_the_best_note_brings_its_notes_though_no_theme_matches() -> None:
    pool = _pool(HUB)
    linked_round(pool, _unmatched_hub(), QUESTION, "¿qué he apuntado sobre mover procesos?", Weights(0.0, 1.0), None)
    order = _order(pool)
    assert order[:3] == [HUB, "other0", "other1"]  # the best notes keep their places
    assert order[3:7] == MEMBERS[:4][::-1]  # then the hub's notes, nearest the question first
    assert order[7:] == OTHERS[2:]


def test_an_unmatched_hub_whose_note_is_second_confirms_nothing() -> None:
    pool = _pool("other0")
    pool.add(f"{HUB}#0", 9.9, "semantic", {"id": f"{HUB}#0", "doc_id": HUB})
    linked_round(pool, _unmatched_hub(), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    assert _order(pool)[:4] == ["other0", HUB, "other1", "other2"]


def test_a_best_note_linked_with_more_than_led_links_notes_is_an_index_and_confirms_nothing() -> None:
    pool = _pool(HUB)
    linked_round(pool, _unmatched_hub(extra_links=LED_LINKS), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    assert _order(pool) == [HUB, *OTHERS]  # no theme: the search's order stands


def test_no_hub_is_confirmed_when_themes_weigh_nothing() -> None:
    pool = _pool(HUB)
    linked_round(pool, _unmatched_hub(), QUESTION, "what have I got", Weights(0.0, 0.0), None)
    assert _order(pool) == [HUB, *OTHERS]


def _shared_pool(lead_rank: int, members_in_pool: int) -> Pool:
    """Six other notes, with the hub's note at `lead_rank` and its first `members_in_pool` members
    after the other notes (each a little lower)."""
    pool = Pool(60)
    order = [*OTHERS]
    order.insert(lead_rank, HUB)
    order += MEMBERS[:members_in_pool]
    for rank, doc in enumerate(order):
        pool.add(f"{doc}#0", 10.0 - rank * 0.2, "semantic", {"id": f"{doc}#0", "doc_id": doc})
    return pool


def test_a_theme_that_several_of_the_best_notes_share_is_confirmed_though_its_lead_is_not_among_the_first() -> None:
    pool = _shared_pool(lead_rank=5, members_in_pool=2)  # the hub's note fifth, two members eighth and ninth
    linked_round(pool, _unmatched_hub(), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    order = _order(pool)
    assert order[:3] == ["other0", "other1", "other2"]  # the best notes keep their places
    assert order[3:8] == [MEMBERS[3], HUB, *MEMBERS[:3][::-1]]  # then the theme's notes, nearest the question first


def test_a_theme_that_only_two_of_the_best_notes_share_confirms_nothing() -> None:
    pool = _shared_pool(lead_rank=5, members_in_pool=1)
    linked_round(pool, _unmatched_hub(), QUESTION, "what have I got", Weights(0.0, 1.0), None)
    assert _order(pool) == [*OTHERS[:5], HUB, *OTHERS[5:], MEMBERS[0]]
