"""Every note is an entity and every link an edge, on small made-up vaults ingested for real."""

import json
from pathlib import Path

import numpy as np

from mnemo.client import MemoryClient
from mnemo.config import GroundingConfig
from mnemo.documents import Chunk
from mnemo.extract.grounding import Grounder
from mnemo.extract.notes import grounding_entities
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.blocking import candidate_pairs
from mnemo.sleep.dedup import EntityRecord
from tests.support import Workspace, make_workspace


def _vault(root: Path, notes: dict[str, str]) -> Path:
    for rel, text in notes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _ingested(tmp_path: Path, notes: dict[str, str]) -> Workspace:
    vault = _vault(tmp_path / "vault", notes)
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    return workspace


def _entities(workspace: Workspace) -> dict[str, dict[str, object]]:
    rows = workspace.graph().query("MATCH (e:Entity) RETURN e.id AS id, e.kind AS kind, e.name AS name, e.aliases AS aliases")
    return {r["id"]: r for r in rows}


def test_untyped_notes_are_entities_typed_by_folder_or_the_default(tmp_path: Path) -> None:
    workspace = _ingested(tmp_path, {
        "Shiny object syndrome.md": "Starting new things is more fun than finishing old ones.\n",
        "People/Ana Souza.md": "Met at the climbing gym.\n",
        "Projects/Garden shed.md": "---\naliases: [The shed]\n---\nBuild it before winter.\n",
        "Books/Dune.md": "---\ntype: book\n---\nRead it twice.\n",
        "2026-03-02.md": "A quiet day.\n",
    })
    entities = _entities(workspace)
    assert entities["topic_shiny_object_syndrome"]["kind"] == "topic"  # ontology.yaml's default_type
    assert entities["person_ana_souza"]["kind"] == "person"  # People/ names a type
    assert entities["project_garden_shed"]["aliases"] == ["The shed"]
    assert entities["artifact_dune"]["kind"] == "artifact"  # declared type wins over the folder
    assert len(entities) == 4  # the daily note is a Day, not an entity
    assert workspace.graph().counts()["Day"] >= 1


def test_links_become_weighted_relations_and_missing_notes_linked_twice_become_entities(tmp_path: Path) -> None:
    workspace = _ingested(tmp_path, {
        "Reading list.md": "Next: [[Deep work]], then [[Deep work]] again, and [[Slow productivity]].\n",
        "Focus.md": "See [[Deep work]] and [[Slow productivity]]; also [[Attention residue]].\n",
        "Deep work.md": "Long stretches without interruption.\n",
    })
    graph = workspace.graph()
    rows = graph.query(
        "MATCH (a:Entity)-[r:REFERS_TO]->(b:Entity) RETURN a.id AS a, b.id AS b, r.props AS props ORDER BY a.id, b.id"
    )
    weights = {(r["a"], r["b"]): json.loads(r["props"])["weight"] for r in rows}
    assert weights[("topic_reading_list", "topic_deep_work")] == 2
    assert weights[("topic_focus", "topic_deep_work")] == 1
    entities = _entities(workspace)
    assert "topic_slow_productivity" in entities  # linked from two notes, no note yet
    assert "topic_attention_residue" not in entities  # linked from one note only
    assert graph.query("MATCH (e:Entity {id: 'topic_slow_productivity'}) RETURN e.origin AS o") == [{"o": "link"}]


FILLER = [
    "Feed the sourdough starter every morning and bake on Sundays.", "Five kilometres along the river before work.",
    "Send the receipts to the accountant in March.", "Why do plants on the balcony need more water in July?",
    "Do the dishes before anything else in the evening.", "I never liked the old bus route to the office.",
    "Finish the tax form and the insurance claim.", "Anything with garlic tastes better the day after.",
    "The library opens at nine and closes at six.", "Never leave the bike outside when it rains.",
    "Why the heating stops at night: the thermostat schedule.", "Do finish the puzzle with the kids this weekend.",
]


def test_link_display_texts_are_weak_aliases_that_recall_uses(tmp_path: Path) -> None:
    notes = {f"Filler {i}.md": text + "\n" for i, text in enumerate(FILLER)}
    workspace = _ingested(tmp_path, {
        **notes,
        "Shiny object syndrome.md": "Chasing each new tool and hobby, then dropping it after a week.\n",
        "Journal entry.md": "Another abandoned side project. [[Shiny object syndrome|I never finish anything]].\n",
    })
    aliases = workspace.graph().query(
        "MATCH (a:Alias)-[r:ALIAS_OF]->(e:Entity) WHERE r.method = 'link_text' "
        "RETURN a.name AS name, e.id AS entity, r.props AS props"
    )
    assert aliases == [{"name": "I never finish anything", "entity": "topic_shiny_object_syndrome", "props": '{"count": 1}'}]
    client = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0))
    found = [item.path for item in client.recall("Why do I never finish anything?", k=3).items]
    assert "Shiny object syndrome.md" in found  # its own text shares no word with the question


def test_a_note_called_home_does_not_make_every_home_a_mention(tmp_path: Path) -> None:
    workspace = _ingested(tmp_path, {
        "Home.md": "The start page: [[Obsidian]] setup and [[Reading list]].\n",
        "Obsidian.md": "A Markdown editor.\n",
        "Reading list.md": "Books to read.\n",
        "Weekend.md": "We stayed home on Saturday. Back Home by noon on Sunday, then at home all day.\n"
                      "Later I opened Obsidian to write it down.\n",
        "Start.md": "Open [[Home]] first.\n",
    })
    rows = workspace.graph().query(
        "MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity) MATCH (n:Note)-[:HAS_CHUNK]->(c) "
        "RETURN n.title AS note, e.id AS entity, m.surface AS surface, m.method AS method"
    )
    weekend = {(r["entity"], r["surface"]) for r in rows if r["note"] == "Weekend"}
    assert ("topic_obsidian", "Obsidian") in weekend  # a name the vault never writes in lower case
    assert not any(entity == "topic_home" for entity, _ in weekend)  # "home" is an ordinary word here
    assert any(r["note"] == "Start" and r["entity"] == "topic_home" and r["method"] == "wikilink" for r in rows)


def test_a_renamed_note_keeps_its_entity_id_and_its_old_title_as_an_alias(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", {
        "Homelab SSL certificates.md": "Renew with certbot every 60 days.\n",
        "Homelab.md": "See [[Homelab SSL certificates]].\n",
    })
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    before = _entities(workspace)
    assert "topic_homelab_ssl_certificates" in before
    (vault / "Homelab SSL certificates.md").rename(vault / "Homelab TLS certificates.md")
    workspace.ingest()
    after = _entities(workspace)
    assert set(after) == set(before)
    renamed = after["topic_homelab_ssl_certificates"]
    assert renamed["name"] == "Homelab TLS certificates" and renamed["aliases"] == ["Homelab SSL certificates"]
    # the old link still leads to it (Obsidian would have rewritten it; a person may not have)
    assert workspace.graph().query(
        "MATCH (:Entity {id: 'topic_homelab'})-[:REFERS_TO]->(e:Entity) RETURN e.id AS id"
    ) == [{"id": "topic_homelab_ssl_certificates"}]


def test_dedup_never_pairs_an_entity_with_itself_in_a_namespace_of_two() -> None:
    vector = np.ones(8, dtype=np.float32)
    records = [
        EntityRecord("artifact_claude", "artifact", "Claude", vector=vector),
        EntityRecord("topic_gardening", "topic", "Gardening", vector=-vector),
    ]
    pairs = candidate_pairs(records, k_vectors=3)
    assert pairs == {("artifact_claude", "topic_gardening")}


def test_link_texts_ground_extraction(tmp_path: Path) -> None:
    workspace = _ingested(tmp_path, {
        "Shiny object syndrome.md": "Chasing each new tool and hobby, then dropping it after a week.\n",
        "Journal entry.md": "Another abandoned side project. [[Shiny object syndrome|I never finish anything]].\n",
    })
    grounder = Grounder(grounding_entities(workspace.files().read_facts()), GroundingConfig(salient=0))
    chunk = Chunk("c1", "test", "d1", 0, "", "Honestly, I never finish anything I start.", "x.md", "x", "note")
    assert [e.id for e in grounder.contexts([chunk])["c1"]] == ["topic_shiny_object_syndrome"]
