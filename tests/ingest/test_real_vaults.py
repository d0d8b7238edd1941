"""The ingest job on a real vault written by someone else (skipped when ../shared is absent)."""

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.config import SleepConfig
from mnemo.maintenance.store_integrity import dangling, relation_violations
from mnemo.sleep.consolidate import consolidate
from tests.support import corpus, make_workspace

pytestmark = pytest.mark.slow  # over 20 s on two cores


def test_kepano_vault(tmp_path: Path) -> None:
    vault = tmp_path / "kepano"
    shutil.copytree(corpus("obsidian-kepano"), vault)
    ws = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    result = ws.ingest()
    docs = ws.metadata(result, "documents")
    # Counted by hand: 103 .md files, of which 52 are in Templates/ (the folder .obsidian/templates.json
    # names): Categories 21 + Clippings 3 + Daily 2 + Notes 5 + References 19 + Readme.md = 51.
    assert docs["documents"] == 51
    assert docs["problems"] == 0
    counts = ws.graph().counts()
    # Daily/2023-09-12.md and Daily/2023-09-30.md, and the days written in the properties of notes made
    # only of properties (their passage is the properties' text, `ingest.cards`)
    days = {r["id"] for r in ws.graph().query("MATCH (d:Day) RETURN d.id AS id")}
    assert days == {"2023-09-12", "2023-09-30", "2021-04-15", "2023-09-01", "2023-09-14"}
    assert counts["Alias"] == 1  # "BOTW" for The Legend of Zelda Breath of the Wild
    # Every note but the two daily ones is an entity (49: those that declare a type or that a relation
    # property implies, and the 20 Categories/ notes and Readme.md, untyped: topic), plus 11 that have
    # no note: 9 named by typed relation properties (Japan, Ridley Scott, ...) and "Authors" and
    # "Published", each linked from two notes or more: 60 (before every note was an entity: 38).
    assert counts["Entity"] == 60
    assert counts["PAGE_OF"] == 49  # 51 notes, 2 of them daily
    assert counts["REFERS_TO"] == 64
    assert counts["Chunk"] == ws.vectors().count("chunks") == ws.metadata(result, "chunks")["chunks"]
    graph = ws.graph()
    # Notes/2023 Japan Trip.md: categories [[Trips]] (event), loc [[Kyoto]], [[Japan]].
    trip = graph.query(
        "MATCH (:Entity {id: 'event_2023_japan_trip'})-[:LOCATED_IN]->(p:Entity) RETURN p.id AS id ORDER BY id"
    )
    assert [r["id"] for r in trip] == ["place_japan", "place_kyoto"]
    # References/Kyoto.md: categories [[Places]], loc [[Japan]] (a note that does not exist).
    assert graph.query("MATCH (:Entity {id: 'place_kyoto'})-[:LOCATED_IN]->(p) RETURN p.origin AS o") == [{"o": "link"}]
    assert graph.query("MATCH (e:Entity {id: 'person_kevin_kelly'}) RETURN e.kind AS k") == [{"k": "person"}]
    assert relation_violations(graph) == []
    assert not any(dangling(graph).values())


@pytest.mark.parametrize("name, kind", [("obsidian-kepano", "obsidian"), ("obsidian-ideaverse", "obsidian"),
                                        ("logseq-docs", "logseq")])
def test_real_vaults_make_a_graph_with_communities(tmp_path: Path, name: str, kind: str) -> None:
    """Every note an entity, every declared alias held, and communities on the person's links."""
    ws = make_workspace(tmp_path, {"test": [{"kind": kind, "path": str(corpus(name))}]})
    ws.ingest()
    files, graph = ws.files(), ws.graph()
    notes = [d for d in files.read_documents() if d.kind == "note"]
    counts = graph.counts()
    assert counts["Entity"] >= 0.8 * len(notes)
    held = {r["doc"]: set(r["aliases"] or []) | {r["name"]} for r in graph.query(
        "MATCH (n:Note)-[:PAGE_OF]->(e:Entity) RETURN n.id AS doc, e.name AS name, e.aliases AS aliases")}
    assert [(d.path, a) for d in notes for a in d.aliases if a not in held.get(d.id, set())] == []
    report = consolidate(files, graph, SleepConfig(), datetime(2026, 11, 27, 3, tzinfo=UTC))
    assert report.communities is not None
    if len(notes) >= 60:
        titled = graph.query("MATCH (c:Community) WHERE c.level = 0 AND c.summary <> '' RETURN c.title AS t")
        assert report.communities.communities >= 3 and len(titled) >= 3
    assert relation_violations(graph) == []
