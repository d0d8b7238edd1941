"""Sleep mode with an LLM (a loopback OpenAI-compatible stub): abstractive community summaries and
portraits that cite chunks, abstraction nodes with instance_of edges, and the fallbacks."""

import json
import re
from datetime import UTC, datetime
from typing import Any

from mnemo.config import LLMConfig
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.consolidate import run_communities, run_profile
from mnemo.sleep.merges import canonical_entities, canonical_facts, sync_graph
from mnemo.sleep.store import SleepFiles
from tests.support import Workspace
from tests.support.llm_stub import Reply, StubLLM

NOW = datetime(2026, 11, 22, 3, tzinfo=UTC)


def _tool(request: dict[str, Any]) -> str:
    return request["tools"][0]["function"]["name"]


def _user(request: dict[str, Any]) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def answers(request: dict[str, Any]) -> Reply:
    """A well-behaved model: cites its first two sources; names a concept for the first two entities."""
    prompt = _user(request)
    if _tool(request) == "CitedSummary":
        first = re.search(r"^\[0\] (.*)$", prompt, re.MULTILINE)
        cited = [0, 1] if "\n[1] " in prompt else [0]
        return Reply(arguments={"summary": f"In short: {first.group(1) if first else ''}", "citations": cited})
    ids = re.findall(r"^- (\w+): ", prompt, re.MULTILINE)
    return Reply(arguments={"concept": "Thing Of Interest", "members": ids[:2]})


def _writer(stub: StubLLM) -> SleepWriter:
    return SleepWriter(LLMConfig(base_url=stub.url, model="stub-model", transient_retries=0, retry_wait=0, max_retries=1), "")


def test_abstractive_summaries_cite_chunks_and_abstractions_become_concepts(workspace: Workspace) -> None:
    workspace.ingest()
    files = workspace.files()
    bad_citation = Reply(arguments={"summary": "Made up.", "citations": [99]})
    with StubLLM(responder=answers, script=[bad_citation]) as stub:
        stats = run_communities(files, _writer(stub))
        asked = len(stub.requests)
        again = run_communities(files, _writer(stub))
        assert len(stub.requests) == asked  # nothing changed: no request
    assert stats.summarized == stats.communities > 0 and again.reused == stats.communities
    assert "not source numbers" in json.dumps(stub.requests[1]["messages"])  # the invalid answer was re-asked
    chunks = {r["id"] for r in workspace.graph().query("MATCH (c:Chunk) RETURN c.id AS id")}
    rows = SleepFiles(files.root).read_overlay("communities").nodes["Community"].values()
    assert all(r["summary"].startswith("In short:") and 1 <= len(r["sources"]) <= 2 and set(r["sources"]) <= chunks for r in rows)

    assert stats.concepts >= 1 and stats.instance_links >= 2
    sync_graph(files, workspace.graph())
    links = workspace.graph().query(
        "MATCH (m:Entity)-[r:INSTANCE_OF]->(c:Entity {id: 'concept_thing_of_interest'}) RETURN m.id AS id, r.extractor AS by, c.origin AS origin")
    assert len(links) >= 2 and {(r["by"], r["origin"]) for r in links} == {("sleep", "sleep")}
    entities = canonical_entities(files).nodes["Entity"]  # what the entity vectors are made of
    assert "concept_thing_of_interest" in entities and entities == canonical_facts(files).nodes["Entity"]


def test_a_failing_llm_leaves_extractive_results_and_is_asked_again_next_run(workspace: Workspace) -> None:
    workspace.ingest()
    files = workspace.files()
    with StubLLM(responder=lambda request: Reply(status=500)) as down:
        failed = run_communities(files, _writer(down))
        profile = run_profile(files, "Sam Rivera", NOW, _writer(down))
    assert failed.llm_failures > 0 and failed.concepts == 0
    rows = SleepFiles(files.root).read_overlay("communities").nodes["Community"].values()
    assert all(r["summary"] and r["sources"] and not r["summary"].startswith("In short:") for r in rows)
    assert profile is not None and profile.version == 1

    with StubLLM(responder=answers) as up:
        recovered = run_communities(files, _writer(up))
        portrait = run_profile(files, "Sam Rivera", NOW, _writer(up))
    assert recovered.summarized == recovered.communities and recovered.concepts >= 1
    assert portrait is not None and portrait.version == 2 and portrait.changed
    current = SleepFiles(files.root).read_overlay("profile").nodes["SelfProfile"][f"profile_{portrait.entity}_v2"]
    assert current["text"].startswith("In short:") and "# Sam Rivera" in current["text"]
    assert json.loads(current["sections"])["cited"]
