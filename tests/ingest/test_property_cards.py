"""Property cards: a note that holds only frontmatter gets one passage of its title and properties
(recallable by a word that is only in a property); a note with a body keeps its passages as before."""

from pathlib import Path

from mnemo.documents import chunk_document
from mnemo.ingest.cards import property_card
from mnemo.ingest.pipeline import document_chunks
from mnemo.sources.obsidian import parse_note
from tests.support import Workspace, make_workspace, steady_client

BLADE_RUNNER = """---
categories:
  - "[[Movies]]"
genre:
  - "[[Sci-fi]]"
director: "[[Ridley Scott|Sir Ridley Scott]]"
cast: ["[[Harrison Ford]]", "Rutger Hauer"]
year: 1982
cover:
ratings: {imdb: 8.1}
mnemo-related: "[[Dune]]"
---
"""
DUNE = (
    "---\ncategories: [\"[[Books]]\"]\n---\n# Dune\nA desert planet and a spice that everyone wants.\n\n"
    "## Notes\nRead it twice.\n"
)


def note(text: str, rel: str) -> tuple[str, ...]:
    doc = parse_note(text, namespace="t", source="v", rel_path=rel, modified=None)
    return tuple(c.text for c in document_chunks(doc, 180, {}))


def test_a_note_of_properties_only_gets_one_card_of_what_the_owner_wrote() -> None:
    doc = parse_note(BLADE_RUNNER, namespace="t", source="v", rel_path="References/Blade Runner.md", modified=None)
    [card] = document_chunks(doc, 180, {})
    assert card.text == (
        "Blade Runner. categories: Movies. genre: Sci-fi. director: Sir Ridley Scott. "
        "cast: Harrison Ford, Rutger Hauer. year: 1982."
    )
    assert card.metadata["card"] == "properties" and card.position == 0 and card.heading == ""
    # mnemo's own write-back properties do not change the card (nor its id)
    without = BLADE_RUNNER.replace('mnemo-related: "[[Dune]]"\n', "")
    again = property_card(parse_note(without, namespace="t", source="v", rel_path=doc.path, modified=None))
    assert again is not None and (again.id, again.text) == (card.id, card.text)


def test_a_note_with_a_body_keeps_its_passages_and_an_empty_one_gets_none() -> None:
    doc = parse_note(DUNE, namespace="t", source="v", rel_path="Dune.md", modified=None)
    fresh = document_chunks(doc, 180, {})
    assert [(c.id, c.text) for c in fresh] == [(c.id, c.text) for c in chunk_document(doc, 180)]
    assert all("card" not in c.metadata for c in fresh)
    assert note("---\ncover:\ngenre: []\n---\n", "Empty.md") == ()
    assert note("", "Blank.md") == ()


def test_a_word_only_in_a_property_recalls_the_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "References").mkdir(parents=True)
    (vault / "References" / "Blade Runner.md").write_text(BLADE_RUNNER, encoding="utf-8")
    (vault / "Dune.md").write_text(DUNE, encoding="utf-8")
    workspace: Workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    found = steady_client(workspace).recall("Rutger Hauer", k=3).items
    assert found and found[0].title == "Blade Runner"
    assert "Rutger Hauer" in found[0].text
