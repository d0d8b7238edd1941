"""The grounding context: alias matches, semantic neighbours from LanceDB, salient entities, a cap."""

from pathlib import Path

from mnemo.config import GroundingConfig
from mnemo.documents import Chunk
from mnemo.extract.grounding import Grounder, LanceEntityNeighbours
from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vectors import VectorStore


def _entity(eid: str, kind: str, name: str, aliases: list[str] | None = None) -> dict:
    return {"id": eid, "kind": kind, "name": name, "aliases": aliases or [], "properties": "{}", "doc_id": "", "origin": "note"}


ENTITIES = {
    e["id"]: e for e in [
        _entity("person_alice", "person", "Alice", ["Ali"]),
        _entity("person_bob", "person", "Bob Martins"),
        _entity("place_lisbon", "place", "Lisbon"),
        _entity("concept_sourdough_baking", "concept", "Sourdough baking"),
        *[_entity(f"concept_topic_{i}", "concept", f"Topic {i}") for i in range(30)],
    ]
}


def _chunk(text: str) -> Chunk:
    return Chunk(id="chunk_x", namespace="t", doc_id="doc_x", position=0, heading="", text=text, path="x.md", title="x", kind="note")


def test_alias_in_text_grounds_the_entity_it_names() -> None:
    grounder = Grounder(ENTITIES, GroundingConfig(salient=0, neighbours=0))
    context = grounder.contexts([_chunk("Coffee with Ali near the river, then Lisbon by night.")])["chunk_x"]
    assert [(g.id, g.reason) for g in context] == [("person_alice", "alias"), ("place_lisbon", "alias")]
    assert grounder.contexts([_chunk("alice-in-chains and alibi do not count")])["chunk_x"] == []


def test_semantic_neighbours_come_from_lancedb_above_the_threshold(tmp_path: Path) -> None:
    embedder = HashingEmbedder(256)
    rows = [{"id": e["id"], "embed_text": e["name"]} for e in ENTITIES.values()]
    store = VectorStore(tmp_path / "lance")
    store.sync("entities", rows, embedder)
    neighbours = LanceEntityNeighbours(store.open("entities"), embedder)
    grounder = Grounder(ENTITIES, GroundingConfig(salient=0, neighbours=3, min_similarity=0.3), neighbours=neighbours)
    context = grounder.contexts([_chunk("my sourdough baking went well")])["chunk_x"]
    assert [(g.id, g.reason) for g in context] == [("concept_sourdough_baking", "similar")]
    assert context[0].score > 0.3
    strict = Grounder(ENTITIES, GroundingConfig(salient=0, neighbours=3, min_similarity=0.99), neighbours=neighbours)
    assert strict.contexts([_chunk("my sourdough baking went well")])["chunk_x"] == []


def test_salient_entities_fill_up_and_the_context_is_deduplicated_and_capped() -> None:
    scores = {"person_bob": 9.0, "person_alice": 5.0, **{f"concept_topic_{i}": 1.0 for i in range(30)}}
    grounder = Grounder(ENTITIES, GroundingConfig(max_entities=4, salient=10, neighbours=0), scores)
    context = grounder.contexts([_chunk("Ali and Topic 3 and Topic 4 and Topic 5")])["chunk_x"]
    assert [g.id for g in context] == ["person_alice", "concept_topic_3", "concept_topic_4", "concept_topic_5"]
    quiet = grounder.contexts([_chunk("nothing known here")])["chunk_x"]
    assert [(g.id, g.reason) for g in quiet][:2] == [("person_bob", "salient"), ("person_alice", "salient")]
    assert len(quiet) == 4 and len({g.id for g in quiet}) == 4
