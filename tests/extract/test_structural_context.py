"""Structural extraction beyond links: ambiguous aliases, dates in text, chat speakers and self."""

import json
from pathlib import Path

from mnemo.config import SourceConfig
from mnemo.documents import Chunk, Document, Segment, chunk_document
from mnemo.extract.dates import anchor_day, find_dates
from mnemo.extract.structural import StructuralExtractor
from mnemo.extract.timeline import SpeakerMap
from mnemo.ingest.segments import chunk_segments
from mnemo.sources.scan import scan_namespace
from ontology import load_ontology

ONTOLOGY = load_ontology()


def _vault(root: Path, notes: dict[str, str]) -> tuple[list[Document], list[Chunk]]:
    for name, text in notes.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    docs = scan_namespace("t", [SourceConfig(kind="obsidian", path=root)], [], []).documents
    return docs, [c for d in docs for c in chunk_document(d)]


def _mentions(facts, path_of: dict[str, str], surface: str) -> dict[str, list[tuple[str, str, dict]]]:
    found: dict[str, list[tuple[str, str, dict]]] = {}
    for row in facts.edges[("MENTIONS", "Chunk", "Entity")].values():
        if row["surface"] == surface:
            found.setdefault(path_of[row["src"]], []).append((row["dst"], row["method"], json.loads(row["props"])))
    return found


PEOPLE = {
    "People/Alex Kim.md": "---\ntype: person\naliases: [Alex]\n---\nA friend from school.\n",
    "People/Alex Moreau.md": "---\ntype: person\naliases: [Alex]\nworks_at: \"[[Acme]]\"\n---\nWorks at Acme.\n",
    "Organizations/Acme.md": "---\ntype: organization\n---\nA robotics company.\n",
}


def test_ambiguous_alias_is_resolved_by_links_or_context_or_kept_marked(tmp_path: Path) -> None:
    docs, chunks = _vault(tmp_path, {
        **PEOPLE,
        "Linked.md": "Dinner with [[Alex Kim]]. Later Alex said the soup was cold.\n",
        "Context.md": "Met Alex at the Acme office to talk about robots.\n",
        "Unclear.md": "Alex called about the weekend.\n",
    })
    facts = StructuralExtractor(ONTOLOGY, "t").extract(docs, chunks)
    found = _mentions(facts, {c.id: c.path for c in chunks}, "Alex")
    assert found["Linked.md"] == [("person_alex_kim", "alias_linked", {})]
    assert found["Context.md"] == [("person_alex_moreau", "alias_context", {})]
    candidates = {"candidates": ["person_alex_kim", "person_alex_moreau"]}
    assert sorted(found["Unclear.md"]) == [
        ("person_alex_kim", "alias_ambiguous", candidates), ("person_alex_moreau", "alias_ambiguous", candidates),
    ]


def test_a_one_word_alias_opening_a_sentence_needs_another_sign(tmp_path: Path) -> None:
    docs, chunks = _vault(tmp_path, {
        "Tools/Selection tool.md": "---\ntype: artifact\naliases: [Select]\n---\nPicks shapes.\n",
        "Howto.md": "Select a folder first.\n1. Select the command. Select it twice.\n",
        "Canvas.md": "Select moves shapes. Pick Select in the toolbar.\n",
        "Linked.md": "- **Select** is in [[Selection tool]]'s menu.\n",
    })
    facts = StructuralExtractor(ONTOLOGY, "t").extract(docs, chunks)
    found = _mentions(facts, {c.id: c.path for c in chunks}, "Select")
    assert sorted(found) == ["Canvas.md", "Linked.md"]  # not the verb opening Howto's sentences
    assert len(found["Canvas.md"]) == 2  # "Pick Select" is a name, so the opening one is too


def test_dates_in_text_resolve_against_the_document_date() -> None:
    anchor = anchor_day("2026-09-03")
    text = "Yesterday Bob said the demo is on 14 October; the kickoff was 2026-08-30, see March 3rd, 2025 or 03/04."
    found = [(text[m.start:m.end], m.day, m.method) for m in find_dates(text, anchor)]
    assert found == [
        ("Yesterday", "2026-09-02", "date:relative"),
        ("14 October", "2026-10-14", "date:absolute"),
        ("2026-08-30", "2026-08-30", "date:iso"),
        ("March 3rd, 2025", "2025-03-03", "date:absolute"),
    ]
    undated = [(text[m.start:m.end], m.day) for m in find_dates(text, None)]
    assert undated == [("2026-08-30", "2026-08-30"), ("March 3rd, 2025", "2025-03-03")]
    assert find_dates("the 31 February party", anchor) == []


def test_journal_dates_become_day_links_and_join_the_timeline(tmp_path: Path) -> None:
    docs, chunks = _vault(tmp_path, {
        "Daily/2026-09-03.md": "Long run tomorrow. The [[2026-09-01]] notes mention 5 September.\n",
        "Essays/On time.md": "Today everything is faster than it was on 2026-01-02.\n",
    })
    facts = StructuralExtractor(ONTOLOGY, "t").extract(docs, chunks)
    path_of = {c.id: c.path for c in chunks}
    days = sorted((path_of[r["src"]], r["dst"], r["surface"]) for r in facts.edges[("MENTIONS_DAY", "Chunk", "Day")].values())
    assert days == [
        ("Daily/2026-09-03.md", "2026-09-04", "tomorrow"),
        ("Daily/2026-09-03.md", "2026-09-05", "5 September"),
        ("Essays/On time.md", "2026-01-02", "2026-01-02"),
    ]
    timeline = sorted((r["src"], r["dst"]) for r in facts.edges[("NEXT", "Day", "Day")].values())
    assert timeline == [("2026-01-02", "2026-09-03"), ("2026-09-03", "2026-09-04"), ("2026-09-04", "2026-09-05")]


def _chat(turns: list[tuple[str, str, str]]) -> Document:
    segments = [
        Segment(id=f"t{i}", text=text, speaker=speaker, role=role, timestamp="2026-09-03T10:00:00")
        for i, (speaker, role, text) in enumerate(turns)
    ]
    return Document(id="doc_chat", namespace="t", source="jsonl", path="chats/c1.jsonl", title="Trip planning",
                    kind="chat", body="", content_hash="h", segments=segments)


def test_chat_speakers_are_entities_and_i_me_in_own_turns_is_the_self() -> None:
    doc = _chat([
        ("Sam", "user", "I think Dana should come with me. I/O is slow."),
        ("Assistant", "assistant", "I can help you plan that."),
        ("Dana Kim", "", "Count me in, I leave tomorrow."),
        ("Ali", "", "Me too, see you at the station."),
        ("sam", "", "Myself, I prefer trains."),  # one of the names in `self_speakers`
    ])
    chunks = chunk_segments(doc, 180)
    assert [len(c.metadata["turn_ids"]) for c in chunks] == [4, 1]  # short turns share a chunk
    alice_note = Document(id="doc_alice", namespace="t", source="obsidian", path="People/Alice Chen.md",
                          title="Alice Chen", kind="note", body="", content_hash="a", aliases=["Ali"],
                          properties={"type": "person"})
    speakers = SpeakerMap("Sam Rivera", ("Sam",))
    facts = StructuralExtractor(ONTOLOGY, "t", speakers).extract([doc, alice_note], chunks)
    said = sorted((chunks.index(next(c for c in chunks if c.id == r["src"])), r["dst"])
                  for r in facts.edges[("SAID_BY", "Chunk", "Entity")].values())
    assert said == [
        (0, "artifact_assistant"), (0, "person_alice_chen"), (0, "person_dana_kim"), (0, "person_sam_rivera"),
        (1, "person_sam_rivera"),
    ]
    assert facts.nodes["Entity"]["person_alice_chen"]["origin"] == "note" and "person_ali" not in facts.nodes["Entity"]
    assert facts.nodes["Entity"]["person_sam_rivera"]["name"] == "Sam Rivera"
    self_mentions = sorted(
        (r["src"], r["surface"], r["span_start"]) for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values()
        if r["method"] == "self"
    )
    first, second = chunks[0].text, chunks[1].text
    assert first.startswith("Sam: I think") and second.startswith("sam: Myself")
    assert self_mentions == sorted([
        (chunks[0].id, "I", len("Sam: ")), (chunks[0].id, "me", first.index("me.")),
        (chunks[1].id, "Myself", len("sam: ")), (chunks[1].id, "I", second.index("I prefer")),
    ])  # not "I/O", not the assistant's, Dana's or Ali's "I"/"me"/"Me"
    mentioned = {r["dst"] for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values() if r["method"] != "self"}
    assert "person_dana_kim" not in mentioned  # "Dana" alone is not her full name; "Dana Kim: " only labels a turn
    day = [r["dst"] for r in facts.edges[("MENTIONS_DAY", "Chunk", "Day")].values()]
    assert day == ["2026-09-04"]
    timeline = sorted((r["src"], r["dst"]) for r in facts.edges[("NEXT", "Day", "Day")].values())
    assert timeline == [("2026-09-03", "2026-09-04")]  # the chat's day and the day it mentions, one chain


def test_two_pages_of_one_entity_make_one_entity_with_every_alias(tmp_path: Path) -> None:
    docs, chunks = _vault(tmp_path, {
        "People/Dana Kim.md": "---\ntype: person\naliases: [DK]\n---\nVP Engineering.\n",
        "Archive/Dana Kim.md": "---\ntype: person\naliases: [Danny]\nrole: Advisor\n---\nMet again.\n",
    })
    facts = StructuralExtractor(ONTOLOGY, "t").extract(docs, chunks)
    first = next(d.id for d in docs if d.path == "Archive/Dana Kim.md")  # pages are read in path order
    dana = facts.nodes["Entity"]["person_dana_kim"]
    assert dana["aliases"] == ["DK", "Danny"] and dana["doc_id"] == first
    assert json.loads(dana["properties"]) == {}  # the later page's own values
    assert {r["src"] for r in facts.edges[("PAGE_OF", "Note", "Entity")].values()} == {d.id for d in docs}
    assert {r["name"] for r in facts.nodes["Alias"].values()} == {"DK", "Danny"}
