"""Related notes that a note does not link yet, with their evidence; what a note already links; where
its subject was mentioned. Pure functions over small hand-made neighbourhoods."""

from mnemo.writeback.link_names import own_links
from mnemo.writeback.mentioned import Mentions, Place
from mnemo.writeback.related import Neighbourhood, related_notes


def _space() -> Neighbourhood:
    names = {"a": "Alpha", "b": "Beta", "c": "Gamma", "d": "Delta", "hub": "Index", "e_x": "Project X",
             "e_alice": "Alice", "e_bob": "Bob"}
    linked = {"a": {"b", "hub"}, "b": {"a"}, "hub": {"a", "c", "d"}, "c": {"hub"}, "d": {"hub"}}
    space = Neighbourhood(names, linked)
    space.neighbours = {"a": {"b", "hub", "e_x"}, "b": {"a", "e_x"}, "c": {"hub", "e_x"}, "d": {"hub"},
                        "hub": {"a", "c", "d"}}
    space.subjects = {"a": ["e_alice"], "d": ["e_bob"]}
    space.page_of = {"e_alice": "a", "e_bob": "d"}
    space.relations = {"e_alice": [("e_alice", "KNOWS", "e_bob")], "e_bob": [("e_alice", "KNOWS", "e_bob")]}
    return space


def test_linked_notes_are_left_out_and_a_relation_between_subjects_counts_most() -> None:
    space = _space()
    found = related_notes(space, "a", {"a", "b", "c", "d", "hub"}, space.by_neighbour(), 8)
    assert [r.note_id for r in found] == ["d", "c"]
    assert found[0].evidence > 2 > found[1].evidence > 0


def test_only_notes_whose_evidence_reaches_the_threshold() -> None:
    space = _space()
    found = related_notes(space, "a", {"a", "b", "c", "d", "hub"}, space.by_neighbour(), 8, min_evidence=2.0)
    assert [r.note_id for r in found] == ["d"]


def test_only_eligible_notes_and_at_most_the_limit() -> None:
    space = _space()
    assert [r.note_id for r in related_notes(space, "a", {"c"}, space.by_neighbour(), 8)] == ["c"]
    assert len(related_notes(space, "a", {"a", "b", "c", "d"}, space.by_neighbour(), 1)) == 1


def test_a_neighbour_shared_by_many_notes_is_not_enough() -> None:
    names = {f"n{i}": f"Note {i}" for i in range(30)} | {"big": "Big hub"}
    space = Neighbourhood(names, {})
    space.neighbours = {f"n{i}": {"big"} for i in range(30)}
    assert related_notes(space, "n0", set(names), space.by_neighbour(), 8) == []


def test_what_a_note_already_links() -> None:
    text = ("---\nup: \"[[Index]]\"\nmnemo-related:\n  - \"[[Written By Mnemo]]\"\n---\n"
            "See [[Alpha|the alpha]], [[Notes/Beta#part]], [x](Some%20Note.md), [y](<Other one.md>), "
            "[web](https://example.org/a.md) and #project/x.\n")
    assert own_links(text, "obsidian", "mnemo") == {
        "index", "alpha", "notes/beta", "beta", "some note", "other one", "project/x", "x"}
    page = "tags:: Foo, [[Bar Baz]]\nmnemo-related:: [[Z]]\n- see #[[Qux]]\n"
    assert own_links(page, "logseq", "mnemo") == {"foo", "bar baz", "qux"}


def test_mentions_newest_first_counted_once_without_the_note_itself() -> None:
    found = Mentions.empty()
    day1, day2, chat = Place("2024-01-02", "2024-01-02", "j1"), Place("2024-03-01", "2024-03-01", "j2"), Place(
        "2024-02-10", "Planning chat")
    found.add_entity("e", day1)
    found.add_entity("e", chat)
    found.add_note("n", day2)
    found.add_note("n", day1)
    found.add_note("j1", day1)
    mentioned = found.of("n", ["e"], 2)
    assert mentioned.places == (day2, chat) and mentioned.count == 3 and mentioned.last == "2024-03-01"
    assert found.of("j1", [], 5).count == 0


def test_a_title_named_in_plain_words_counts_the_less_the_more_notes_name_it() -> None:
    from mnemo.writeback.named import named_notes

    titles = {"r": "Regatta", "b": "Boat", "d": "2025-03-10", "x": "Cálculo I"}
    texts = {"a": "The REGATTA is in May; a boat race.", "c": "Exercícios de cálculo i ajudam, e o barco.",
             "r": "Regatta: the spring race with the boat."}
    assert named_notes(texts, titles) == {"a": {"r", "b"}, "c": {"x"}, "r": {"b"}}
    space = Neighbourhood({}, {})
    space.named = named_notes(texts, titles)
    for note, others in space.named.items():
        for other in others:
            space.named_by.setdefault(other, set()).add(note)
    found = {r.note_id: r.evidence for r in related_notes(space, "a", {"r", "b"}, {}, 8)}
    assert found["r"] == 1.0 and round(found["b"], 3) == round(1 / 2 ** 0.5, 3)  # Boat is named by two notes


def test_english_is_told_by_its_function_words() -> None:
    from mnemo.writeback.language import looks_english

    assert looks_english("Kevin Kelly is the author of a book that was written for the people of the internet")
    assert not looks_english("Aulas de cálculo com a professora Ana, matrizes e vetores, listas de exercícios")
    assert looks_english("Out of Control", short=True) and not looks_english("Out of Control")
