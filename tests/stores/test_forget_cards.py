"""A note's card (its names and opening words, `recall.note_cards`) goes with a forget of the note
or of any of its passages: no file of the vector tables holds the card's text afterwards, and the
other notes' cards stay; so do the cards that name a forgotten note among their linked notes."""

from pathlib import Path

from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vector_purge import CARDS, purge_vectors
from mnemo.stores.vectors import VectorStore
from tests.support.needles import holders

NEEDLE = "clave-4471-lince"  # in the opening words of the first note


def _store(root: Path) -> VectorStore:
    """Two notes, two passages each, and a card per note."""
    store, embedder = VectorStore(root / "vectors"), HashingEmbedder()
    texts = {"d1": [f"La clave del trastero es {NEEDLE}.", "Segundo párrafo."], "d2": ["Otra nota.", "Más texto."]}
    chunks = [{"id": f"{doc}#{n}", "doc_id": doc, "position": n, "embed_text": text}
              for doc, parts in texts.items() for n, text in enumerate(parts)]
    store.sync("chunks", chunks, embedder)
    cards = [{"id": f"card_{doc}", "doc_id": doc, "path": f"{doc}.md", "embed_text": f"{doc}. {' '.join(parts)}"}
             for doc, parts in texts.items()]
    store.sync(CARDS, cards, embedder)
    return store


def _cards(store: VectorStore) -> list[str]:
    table = store.open(CARDS)
    assert table is not None
    return sorted(table.select(["doc_id"])["doc_id"].to_pylist())


def test_forgetting_a_passage_takes_its_notes_card_with_it(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert holders(store.path, NEEDLE)
    purge_vectors(store, ["d1#0"], [], [])
    assert holders(store.path, NEEDLE) == []
    assert _cards(store) == ["d2"]


def test_forgetting_a_note_takes_its_card_and_leaves_the_others(tmp_path: Path) -> None:
    store = _store(tmp_path)
    purge_vectors(store, [], ["d1"], [])
    assert holders(store.path, NEEDLE) == []
    assert _cards(store) == ["d2"]


def test_a_forget_resumed_after_a_cut_takes_every_card(tmp_path: Path) -> None:
    store = _store(tmp_path)
    purge_vectors(store, ["d1#0"], [], [], whole=True)  # the passages may be gone: which notes is not known
    assert holders(store.path, NEEDLE) == []
    assert _cards(store) == []


def test_forgetting_a_note_takes_the_cards_naming_it_as_a_linked_note(tmp_path: Path) -> None:
    store, embedder = VectorStore(tmp_path / "vectors"), HashingEmbedder()
    store.sync("chunks", [{"id": f"{d}#0", "doc_id": d, "position": 0, "embed_text": "Texto."} for d in "abc"],
               embedder)
    store.sync(CARDS, [
        {"id": "card_a", "doc_id": "a", "path": "a.md", "embed_text": "Lince ibérico; Lince. Un felino."},
        {"id": "card_b", "doc_id": "b", "path": "b.md", "embed_text": "Felinos. Gatos grandes. Lince ibérico, Puma"},
        {"id": "card_c", "doc_id": "c", "path": "c.md", "embed_text": "Puma. Otro felino. Felinos"},
    ], embedder)
    purge_vectors(store, [], ["a"], [])
    assert holders(store.path, "Lince ib") == []
    assert _cards(store) == ["c"]
