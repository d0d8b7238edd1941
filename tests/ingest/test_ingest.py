"""The ingest job end to end on real files, real Kùzu and real LanceDB in temp dirs."""

from pathlib import Path

import pytest

from mnemo.ingest import pipeline
from mnemo.maintenance.store_integrity import dangling, relation_violations
from tests.support import Workspace


def canonical(ws: Workspace) -> dict[str, object]:
    """Everything the stores hold, sorted: graph nodes/edges, vector ids and hashes."""
    vectors = ws.vectors()
    return {"graph": ws.graph().dump(), "chunks": vectors.dump("chunks"), "entities": vectors.dump("entities")}


def test_example_vault_counts(workspace: Workspace) -> None:
    result = workspace.ingest()
    docs = workspace.metadata(result, "documents")
    # 49 notes in examples/vault; Templates/ is the vault's templates folder (.obsidian/templates.json).
    assert docs["documents"] == 48
    assert docs["problems"] == 3  # Zettelkasten (invalid YAML), Jonas Weber (unclosed), Café Lusitano (tab)
    counts = workspace.graph().counts()
    # Checked by hand: 32 notes declare a type or are implied by relation properties (Zettelkasten,
    # Donella Meadows, Japan). Every other note is an entity too: Jonas Weber and Café Lusitano lose
    # their declared type to broken frontmatter and take their folder's (People/, Places/), Deep work
    # takes Concepts/, the two Inbox notes take the default type (topic), and Mariana Costa, who has no
    # note but is linked from two, becomes one: 38. Journal pages stay Days.
    assert counts["Entity"] == 38
    # Sam, Ali, A. Chen, DK, Tomi, Le Guin, Ursula Le Guin, Acme, LRC, Lisboa, Heron, and 4 link texts
    assert counts["Alias"] == 15
    assert counts["REFERS_TO"] == 149  # one per (note, entity it links to), weighted by the links
    relations = sum(counts[r.table] for r in workspace.graph().ontology.relation_types.values())
    assert relations == 71 + 149
    assert counts["WORKS_AT"] == 5 and counts["LIVES_IN"] == 9 and counts["RELATED_TO"] == 2
    # 13 journal days, and 3 days only mentioned in text: 2026-10-28 ("tomorrow" on 10-27),
    # 2026-11-07 ("tomorrow" on 11-06, "yesterday" on 11-08) and 2026-12-06 ("6 December 2026").
    assert counts["Day"] == 16 and counts["NEXT"] >= 15
    assert counts["Chunk"] == workspace.metadata(result, "chunks")["chunks"] == workspace.vectors().count("chunks")
    assert workspace.vectors().count("entities") == 38
    assert relation_violations(workspace.graph()) == []
    assert not any(dangling(workspace.graph()).values())
    assert all(check.passed for check in result.get_asset_check_evaluations())


def test_integrity_checks_find_what_dangles_and_what_breaks_the_ontology(workspace: Workspace) -> None:
    """The checks the ingest job runs count each kind of damage (they are zero on every ingested graph)."""
    workspace.ingest()
    graph = workspace.graph()
    with graph.connect() as conn:
        for cypher in [
            "CREATE (:Chunk {id: 'chunk_orphan'})",
            "CREATE (:Alias {id: 'alias_orphan'})",
            "CREATE (:Note {id: 'note_missing_orphan', present: false})",
            "CREATE (:Entity {id: 'person_orphan', kind: 'person'})",
            "MATCH (a:Entity {id: 'organization_acme_robotics'}), (b:Entity {id: 'person_alice_chen'}) "
            "CREATE (a)-[:WORKS_AT {id: 'works_at_backwards'}]->(b)",
        ]:
            conn.execute(cypher)
    assert dangling(graph) == {"chunks without a note": 1, "aliases without an entity": 1,
                               "missing notes nobody links to": 1, "entities with no provenance": 1}
    assert relation_violations(graph) == [
        "1 x works_at does not allow organization -> person (domain ['person'], range ['organization'])"]


def test_alias_mentions_and_typed_relations(workspace: Workspace) -> None:
    workspace.ingest()
    graph = workspace.graph()
    works = graph.query("MATCH (a:Entity)-[:WORKS_AT]->(b:Entity {id: 'organization_acme_robotics'}) RETURN a.id AS id ORDER BY id")
    assert [r["id"] for r in works][:2] == ["person_alice_chen", "person_bob_martins"]
    mentor = graph.query("MATCH (:Entity {id: 'person_sam_rivera'})-[r:RELATED_TO]->(b) RETURN b.id AS b, r.role AS role")
    assert mentor == [{"b": "person_dana_kim", "role": "mentor"}]
    spans = graph.query(
        "MATCH (c:Chunk)-[m:MENTIONS]->(:Entity {id: 'person_alice_chen'}) WHERE m.method = 'alias' "
        "RETURN c.text AS text, m.span_start AS s, m.span_end AS e, m.surface AS surface"
    )
    assert spans, "Alice is mentioned by alias somewhere in the vault"
    for row in spans:
        assert row["surface"] in ("Ali", "A. Chen", "Alice Chen")
        assert row["e"] - row["s"] == len(row["surface"])


def test_second_run_is_idempotent_and_embeds_nothing(workspace: Workspace) -> None:
    workspace.ingest()
    first = canonical(workspace)
    again = workspace.ingest()
    assert workspace.metadata(again, "chunk_vectors")["embedded"] == 0
    assert workspace.metadata(again, "entity_vectors")["embedded"] == 0
    assert workspace.metadata(again, "entity_graph")["writes"] == 0
    assert workspace.metadata(again, "documents")["unchanged"] == 48
    assert workspace.metadata(again, "documents")["problems"] == 3  # still reported while unfixed
    assert canonical(workspace) == first


def test_edit_delete_rename_change_exactly_what_they_should(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    before_chunks = {c.id: c for c in workspace.files("test").read_chunks()}
    heron = vault / "Projects" / "Project Heron.md"
    heron.write_text(heron.read_text(encoding="utf-8") + "\n## Retro\nThe lifts were the hard part.\n", encoding="utf-8")
    (vault / "Books" / "The Dispossessed.md").unlink()
    (vault / "Concepts" / "Spaced repetition.md").rename(vault / "Concepts" / "Spacing effect.md")
    result = workspace.ingest()

    docs = workspace.metadata(result, "documents")
    assert (docs["changed"], docs["deleted"], docs["renamed"], docs["new"]) == (1, 1, 1, 0)
    after_chunks = {c.id: c for c in workspace.files("test").read_chunks()}
    added, removed = set(after_chunks) - set(before_chunks), set(before_chunks) - set(after_chunks)
    assert [after_chunks[i].text for i in added] == ["The lifts were the hard part."]
    assert {before_chunks[i].path for i in removed} == {"Books/The Dispossessed.md"}
    renamed = [c for c in after_chunks.values() if c.path == "Concepts/Spacing effect.md"]
    assert renamed and all(c.id in before_chunks for c in renamed), "a rename keeps chunk ids"
    vectors = workspace.metadata(result, "chunk_vectors")
    assert vectors["embedded"] == 1 + len(renamed)  # the new passage; renamed passages carry the new title
    assert vectors["deleted"] == len(removed)
    graph = workspace.graph()
    assert graph.query("MATCH (e:Entity {id: 'artifact_the_dispossessed'}) RETURN e.id") == []
    # a renamed note keeps its entity: same id, the new title as its name, the old one as an alias
    # (links to [[Spaced repetition]] still lead to it)
    assert graph.query("MATCH (e:Entity {id: 'concept_spacing_effect'}) RETURN e.id AS id") == []
    assert graph.query(
        "MATCH (e:Entity {id: 'concept_spaced_repetition'}) RETURN e.name AS name, e.aliases AS aliases, e.origin AS o"
    ) == [{"name": "Spacing effect", "aliases": ["Spaced repetition"], "o": "note"}]
    assert workspace.vectors().count("chunks") == len(after_chunks)


def test_a_re_run_makes_chunk_rows_only_for_changed_notes(workspace: Workspace, vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace.ingest()
    made: list[str] = []
    real = pipeline.chunk_rows
    monkeypatch.setattr(pipeline, "chunk_rows", lambda chunks: made.extend(c.path for c in chunks) or real(chunks))
    heron = vault / "Projects" / "Project Heron.md"
    heron.write_text(heron.read_text(encoding="utf-8") + "\n## Retro\nThe lifts were the hard part.\n", encoding="utf-8")
    (vault / "Concepts" / "Spaced repetition.md").rename(vault / "Concepts" / "Spacing effect.md")
    result = workspace.ingest()
    assert set(made) == {"Projects/Project Heron.md", "Concepts/Spacing effect.md"}
    assert workspace.metadata(result, "chunk_vectors")["rows"] == len(workspace.files("test").read_chunks())
    kept = canonical(workspace)["chunks"]
    (workspace.files("test").vectors_path / "chunks.groups.json").unlink()  # every row made and compared again
    made.clear()
    workspace.ingest()
    assert len(made) == len(workspace.files("test").read_chunks()) and canonical(workspace)["chunks"] == kept


def test_bad_notes_are_reported_and_the_rest_ingested(workspace: Workspace, vault: Path) -> None:
    (vault / "Inbox" / "latin1.md").write_bytes("caf\xe9 com leite".encode("latin-1"))
    (vault / "Inbox" / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (vault / "Inbox" / "empty.md").write_bytes(b"")
    (vault / "Inbox" / "yaml.md").write_text("---\nkey: [oops\n---\nStill here.\n", encoding="utf-8")
    result = workspace.ingest()
    docs = workspace.metadata(result, "documents")
    assert docs["documents"] == 48 + 1  # only the YAML one is kept (its body is fine)
    table = docs["problem_files"].value if hasattr(docs["problem_files"], "value") else docs["problem_files"]
    for path, reason in [
        ("Inbox/latin1.md", "invalid UTF-8 at byte 3"),
        ("Inbox/image.md", "binary content"),
        ("Inbox/empty.md", "empty file"),
        ("Inbox/yaml.md", "invalid YAML frontmatter"),
    ]:
        assert path in str(table) and reason in str(table)
    logged = [entry.user_message for entry in workspace.instance.all_logs(result.run_id)]
    assert any("Inbox/latin1.md: invalid UTF-8" in m for m in logged)
    assert any("Inbox/yaml.md: invalid YAML frontmatter" in m for m in logged)
    assert workspace.graph().counts()["Entity"] == 38 + 1  # the kept YAML note is an (untyped) entity
