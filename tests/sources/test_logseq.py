"""Logseq graphs: outline blocks, properties, links, tags, block references, journal dates."""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mnemo.errors import SourceError
from mnemo.sources import logseq
from tests.support import make_workspace

PAGE = """title:: Project Heron
alias:: Heron, [[Heron Dock]]
tags:: robotics, [[side projects]]
type:: [[Project]]

- Goal: a dock planner for [[Lisbon]] marinas. #[[open source]] #boats
  id:: 6500a1b2-0000-4000-8000-000000000001
  collapsed:: true
	- Kick-off with [[Alice Chen]]
	  :LOGBOOK:
	  CLOCK: [2026-09-01 Tue 10:00]--[2026-09-01 Tue 11:00] =>  01:00:00
	  :END:
		- TODO write the brief
- ```
  - not a block, code
  ```
"""


def test_page_properties_links_tags_and_nesting() -> None:
    settings = logseq.GraphSettings(logseq.journal_pattern("yyyy_MM_dd"))
    (doc,) = logseq.parse_file(PAGE.encode(), "ns", "graph", "pages/projects___heron%3F.md", None, settings)
    assert doc.title == "Project Heron" and doc.kind == "note"
    assert doc.aliases == ["Heron", "Heron Dock", "projects/heron?"]
    assert doc.properties["type"] == "Project" and doc.properties["tags"] == ["robotics", "side projects"]
    assert {"robotics", "side projects", "open source", "boats"} <= set(doc.tags)
    targets = {(link.target, link.property) for link in doc.links}
    assert {("Project", "type"), ("Lisbon", None), ("Alice Chen", None), ("open source", None)} <= targets
    goal, kickoff, todo, code = doc.segments
    assert goal.id == "6500a1b2-0000-4000-8000-000000000001" and goal.meta["properties"] == {"collapsed": "true"}
    assert (kickoff.parent, kickoff.depth, todo.parent, todo.depth) == (goal.id, 1, kickoff.id, 2)
    assert kickoff.text == "Kick-off with [[Alice Chen]]"  # the LOGBOOK drawer is left out
    assert code.text.startswith("```") and "not a block" in code.text
    assert not doc.problems


def test_journal_dates_follow_config_edn(tmp_path: Path) -> None:
    (tmp_path / "logseq").mkdir()
    (tmp_path / "logseq" / "config.edn").write_text(
        '{:journal/file-name-format "yyyy-MM-dd" ; daily pages\n :journals-directory "daily"}', encoding="utf-8")
    settings = logseq.graph_settings(tmp_path)
    assert logseq.journal_day("daily/2026-09-03.md", settings) == "2026-09-03"
    assert logseq.journal_day("daily/2026_09_03.md", settings) is None
    assert logseq.journal_day("pages/2026-09-03.md", settings) is None
    assert logseq.journal_day("journals/2026_09_03.md", logseq.graph_settings(tmp_path / "missing")) == "2026-09-03"


def test_an_empty_org_page_is_reported() -> None:
    with pytest.raises(SourceError, match="empty file"):
        logseq.parse_file(b"\n", "ns", "graph", "pages/Old.org", None)


def test_a_graph_ingests_blocks_as_chunks_with_resolved_references(tmp_path: Path) -> None:
    graph = tmp_path / "graph"
    (graph / "pages").mkdir(parents=True)
    (graph / "journals").mkdir()
    (graph / "logseq").mkdir()
    (graph / "logseq" / "config.edn").write_text("{:meta/version 1}", encoding="utf-8")
    (graph / "logseq" / "bak").mkdir()
    (graph / "logseq" / "bak" / "old.md").write_text("- backup\n", encoding="utf-8")
    (graph / "pages" / "Project Heron.md").write_text(PAGE, encoding="utf-8")
    (graph / "journals" / "2026_09_02.md").write_text(
        "- Met Alice about ((6500a1b2-0000-4000-8000-000000000001))\n- Notes\n\t- second level\n", encoding="utf-8")
    (graph / "pages" / "Old.org").write_text("\n", encoding="utf-8")  # an empty page is a problem
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    result = workspace.ingest()
    assert [p["path"] for p in workspace.files().read_problems()] == ["pages/Old.org"]
    chunks = {c.text: c for c in workspace.files().read_chunks()}
    met = chunks["Met Alice about Goal: a dock planner for [[Lisbon]] marinas. #[[open source]] #boats"]
    assert met.timestamp == "2026-09-02" and met.kind == "journal"
    child = chunks["second level"]
    assert child.heading == "Notes" and child.metadata["parent_chunk"] == chunks["Notes"].id
    # the journal's blocks have its day; the page, without a date in its name or properties, none
    assert {c.timestamp for c in chunks.values()} == {"2026-09-02", None}
    assert workspace.graph().query("MATCH (n:Note)-[:ON_DAY]->(d:Day) RETURN d.id AS day") == [{"day": "2026-09-02"}]
    assert workspace.metadata(result, "extractions")["entities"] >= 1  # its "type:: [[Project]]" makes the page an entity

    # Editing the referenced block re-chunks the page that quotes it, and nothing else.
    page = graph / "pages" / "Project Heron.md"
    page.write_text(PAGE.replace("Goal: a dock planner", "Goal: a berth planner"), encoding="utf-8")
    again = workspace.ingest()
    assert workspace.metadata(again, "chunks")["rechunked_documents"] == 2
    assert any(t.startswith("Met Alice about Goal: a berth planner") for t in (c.text for c in workspace.files().read_chunks()))


_OUTLINE = st.lists(
    st.tuples(st.integers(0, 4), st.text(st.characters(categories=["L", "N"], include_characters=" -"), min_size=1, max_size=40)
              .map(str.strip).filter(lambda t: t and not t.startswith("-"))),
    min_size=1, max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(_OUTLINE, st.sampled_from(["\t", "  "]))
def test_outline_round_trip_keeps_every_block_and_its_parent(items: list[tuple[int, str]], indent: str) -> None:
    depths: list[int] = []
    for wanted, _ in items:  # a valid outline never skips a level
        depths.append(min(wanted, depths[-1] + 1) if depths else 0)
    text = "\n".join(f"{indent * d}- {t}" for d, (_, t) in zip(depths, items)) + "\n"
    (doc,) = logseq.parse_file(text.encode(), "ns", "graph", "pages/P.md", None)
    assert [s.text for s in doc.segments] == [t for _, t in items]
    assert [s.depth for s in doc.segments] == depths
    for i, segment in enumerate(doc.segments):
        parents = [j for j in range(i) if depths[j] == depths[i] - 1]
        assert segment.parent == (doc.segments[parents[-1]].id if depths[i] else None)
    assert len({s.id for s in doc.segments}) == len(doc.segments)
