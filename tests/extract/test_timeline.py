"""One timeline: journals, ChatGPT, Claude and JSONL chats in one namespace's graph."""

import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg
import yaml

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.sleep_integrity import content_days, missing_day_summaries
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import day_chunks
from mnemo.sleep.view import FactsView
from tests.support import Workspace

CHATGPT = [{
    "id": "gpt-1", "title": "Porto trip", "create_time": 1788602400.0, "current_node": "a1",  # 2026-09-05 10:00 UTC
    "mapping": {
        "r": {"id": "r", "parent": None, "children": ["u1"], "message": None},
        "u1": {"id": "u1", "parent": "r", "children": ["a1"], "message": {
            "id": "u1", "author": {"role": "user"}, "create_time": 1788602400.0,
            "content": {"content_type": "text", "parts": ["Plan a weekend in Porto with Dana Kim."]}}},
        "a1": {"id": "a1", "parent": "u1", "children": [], "message": {
            "id": "a1", "author": {"role": "assistant"}, "create_time": 1788688800.0,  # next day
            "content": {"content_type": "text", "parts": ["Start at the Ribeira, then cross to Gaia."]}}},
    },
}]
CLAUDE = [{
    "uuid": "cl-1", "name": "Running plan", "created_at": "2026-09-03T08:00:00Z",
    "chat_messages": [
        {"uuid": "m2", "sender": "assistant", "text": "Three easy runs a week.", "created_at": "2026-09-03T08:01:00Z"},
        {"uuid": "m1", "sender": "human", "text": "How should I train for a half marathon?", "created_at": "2026-09-03T08:00:00Z"},
    ],
}]
JSONL = [
    {"conversation": "dana", "speaker": "Dana Kim", "text": "Are we still on for Porto?", "timestamp": "2026-09-04T19:00:00Z"},
    {"conversation": "dana", "speaker": "Sam", "text": "Yes! Train on Friday.", "timestamp": "2026-09-04T19:02:00Z"},
]


def _workspace(tmp_path: Path, vault: Path) -> Workspace:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "chatgpt.json").write_text(json.dumps(CHATGPT), encoding="utf-8")
    (inbox / "claude.json").write_text(json.dumps(CLAUDE), encoding="utf-8")
    (tmp_path / "texts.jsonl").write_text("\n".join(json.dumps(x) for x in JSONL), encoding="utf-8")
    config = {
        "data_dir": str(tmp_path / "data"),
        "namespaces": {"test": {
            "self": "Sam Rivera", "self_speakers": ["Sam"],
            "sources": [
                {"kind": "obsidian", "path": str(vault)},
                {"kind": "inbox", "path": str(inbox)},
                {"kind": "jsonl", "path": str(tmp_path / "texts.jsonl")},
            ],
        }},
        "embedder": {"kind": "hashing"},
    }
    path = tmp_path / "mnemo.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return Workspace(tmp_path, path, dg.DagsterInstance.ephemeral())


def test_episodes_days_and_speakers_form_one_timeline(tmp_path: Path, small_vault: Path) -> None:
    workspace = _workspace(tmp_path, small_vault)
    metadata = workspace.metadata(workspace.ingest(), "documents")
    assert metadata["by_kind"] == {"note": 2, "journal": 2, "chat": 3}
    assert (metadata["turns"], metadata["blocks"]) == (6, 0)
    graph = workspace.graph()
    episodes = graph.query("MATCH (e:Episode) RETURN e.title AS title, e.start_time AS started, e.end_time AS ended, e.turns AS turns ORDER BY e.start_time")
    assert [(e["title"], e["turns"]) for e in episodes] == [("Running plan", 2), ("dana", 2), ("Porto trip", 2)]
    assert episodes[2]["started"] == "2026-09-05T10:00:00+00:00" and episodes[2]["ended"] == "2026-09-06T10:00:00+00:00"
    chain = graph.query("MATCH (a:Episode)-[:NEXT]->(b:Episode) RETURN a.title AS a, b.title AS b ORDER BY a.start_time")
    assert [(c["a"], c["b"]) for c in chain] == [("Running plan", "dana"), ("dana", "Porto trip")]

    porto_days = graph.query("MATCH (e:Episode {title: 'Porto trip'})-[:ON_DAY]->(d:Day) RETURN d.id AS day ORDER BY d.id")
    assert [d["day"] for d in porto_days] == ["2026-09-05", "2026-09-06"]
    days = [d["id"] for d in graph.query("MATCH (d:Day) RETURN d.id AS id ORDER BY d.id")]
    nexts = graph.query("MATCH (a:Day)-[:NEXT]->(b:Day) RETURN a.id AS a, b.id AS b ORDER BY a.id")
    assert [(n["a"], n["b"]) for n in nexts] == list(zip(days, days[1:]))
    assert {"2026-09-01", "2026-09-03", "2026-09-04", "2026-09-06"} <= set(days)  # daily notes and chat days together

    speakers = graph.query("MATCH (p:Entity)-[r:SPOKE_IN]->(e:Episode) RETURN e.title AS ep, p.id AS who, p.kind AS kind ORDER BY ep, who")
    assert {(s["ep"], s["who"], s["kind"]) for s in speakers} == {
        ("Running plan", "person_sam_rivera", "person"), ("Running plan", "artifact_claude", "artifact"),
        ("dana", "person_sam_rivera", "person"), ("dana", "person_dana_kim", "person"),
        ("Porto trip", "person_sam_rivera", "person"), ("Porto trip", "artifact_chatgpt", "artifact"),
    }
    # Sam Rivera and Dana Kim are the vault's own people notes, not new entities.
    origins = {r["id"]: r["origin"] for r in graph.query("MATCH (e:Entity) WHERE e.id IN ['person_sam_rivera', 'person_dana_kim'] RETURN e.id AS id, e.origin AS origin")}
    assert origins == {"person_sam_rivera": "note", "person_dana_kim": "note"}
    said = graph.query("MATCH (c:Chunk)-[:SAID_BY]->(p:Entity {id: 'person_dana_kim'}) MATCH (c)-[:IN_EPISODE]->(e:Episode) RETURN e.title AS ep")
    assert {s["ep"] for s in said} == {"dana"}
    mention = graph.query("MATCH (c:Chunk)-[:MENTIONS]->(p:Entity {id: 'person_dana_kim'}) MATCH (c)-[:IN_EPISODE]->(e:Episode) RETURN e.title AS ep")
    assert {m["ep"] for m in mention} == {"Porto trip"}  # a chat that mentions her by name
    own = graph.query("MATCH (c:Chunk)-[m:MENTIONS]->(p:Entity) WHERE m.method = 'self' MATCH (c)-[:IN_EPISODE]->(e:Episode) RETURN e.title AS ep, p.id AS who, m.surface AS surface")
    assert [(o["ep"], o["who"], o["surface"]) for o in own] == [("Running plan", "person_sam_rivera", "I")]  # "How should I train"
    # every passage of a chat, a journal day or a dated note has its time; an undated note's have none
    undated = graph.query("MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE c.timestamp = '' "
                          "RETURN DISTINCT n.kind AS kind, n.created AS created")
    assert undated and all((u["kind"], u["created"] or "") == ("note", "") for u in undated)
    _rerun_does_no_work_and_a_newer_export_supersedes_the_old(workspace, tmp_path)


def _rerun_does_no_work_and_a_newer_export_supersedes_the_old(workspace: Workspace, tmp_path: Path) -> None:
    before = workspace.graph().dump()
    again = workspace.ingest()
    assert workspace.metadata(again, "chunks")["rechunked_documents"] == 0
    assert workspace.metadata(again, "entity_graph")["writes"] == 0
    assert workspace.metadata(again, "chunk_vectors")["embedded"] == 0
    assert workspace.graph().dump() == before

    # The person drops a newer full export next to the old one: the conversation is not duplicated.
    newer = json.loads(json.dumps(CHATGPT))
    newer[0]["mapping"]["a1"]["children"] = ["u2"]
    newer[0]["mapping"]["u2"] = {"id": "u2", "parent": "a1", "children": [], "message": {
        "id": "u2", "author": {"role": "user"}, "create_time": 1788775200.0,
        "content": {"content_type": "text", "parts": ["Book the 18:09 train."]}}}
    newer[0]["current_node"] = "u2"
    shutil.copy(tmp_path / "inbox" / "chatgpt.json", tmp_path / "inbox" / "chatgpt-old.json")
    (tmp_path / "inbox" / "chatgpt.json").write_text(json.dumps(newer), encoding="utf-8")
    workspace.ingest()
    rows = workspace.graph().query("MATCH (e:Episode {title: 'Porto trip'}) RETURN e.turns AS turns, e.doc_id AS doc")
    assert len(rows) == 1 and rows[0]["turns"] == 3
    titles = [d.title for d in workspace.files().read_documents()]
    assert titles.count("Porto trip") == 1


def test_a_graph_made_before_episodes_existed_gains_them(tmp_path: Path) -> None:
    import kuzu

    from mnemo.facts import GraphFacts, edge
    from mnemo.stores.graph import GraphStore
    from mnemo.stores.graph_schema import EDGE_PROPS, NODE_SCHEMAS
    from ontology import load_ontology

    path = tmp_path / "graph.kuzu"
    db = kuzu.Database(str(path))
    conn = kuzu.Connection(db)
    for table in ("Chunk", "Day"):
        columns = ", ".join(f"{name} {kind}" for name, kind in NODE_SCHEMAS[table].items())
        conn.execute(f"CREATE NODE TABLE {table}({columns}, PRIMARY KEY (id))")
    props = ", ".join(f"{p} {'INT64' if p.startswith('span_') else 'STRING'}" for p in EDGE_PROPS)
    conn.execute(f"CREATE REL TABLE NEXT(FROM Chunk TO Chunk, FROM Day TO Day, {props})")  # the older NEXT
    conn.close()
    db.close()
    facts = GraphFacts()
    for episode in ("episode_a", "episode_b"):
        facts.add_node("Episode", {"id": episode, "doc_id": "", "title": episode, "source": "", "start_time": "",
                                   "end_time": "", "turns": 1, "speakers": []})
    facts.add_edge("NEXT", "Episode", "Episode", edge("NEXT", "episode_a", "episode_b", ""))
    GraphStore(path, load_ontology()).apply(facts)
    rows = GraphStore(path, load_ontology()).query("MATCH (a:Episode)-[:NEXT]->(b:Episode) RETURN a.id AS a, b.id AS b")
    assert rows == [{"a": "episode_a", "b": "episode_b"}]



def test_the_closed_days_check_finds_the_days_the_summaries_read(tmp_path: Path, small_vault: Path) -> None:
    workspace = _workspace(tmp_path, small_vault)
    workspace.ingest()
    files = workspace.files()
    days = content_days(files)
    assert days == set(day_chunks(FactsView(files.read_facts())))
    assert {"2026-09-01", "2026-09-03", "2026-09-04", "2026-09-05"} <= days  # journals and the three chats
    today = date(2026, 10, 1)
    assert missing_day_summaries(files, today) == sorted(days)
    consolidate(files, workspace.graph(), SleepConfig(), datetime(2026, 10, 1, tzinfo=UTC))
    assert missing_day_summaries(files, today) == []
    assert missing_day_summaries(files, date(2026, 9, 4)) == []  # later days are not closed yet
    sleep = SleepFiles(files.root)
    summaries = sleep.read_overlay("summaries")
    del summaries.nodes["Summary"]["summary_day_2026-09-05"]
    sleep.write_overlay("summaries", summaries)
    assert missing_day_summaries(files, today) == ["2026-09-05"]
