"""The LLM extractor against a loopback OpenAI-compatible stub: re-ask, retries, fallback, cache."""

import json
from pathlib import Path

import pytest
import yaml

from mnemo.config import GroundingConfig, LLMConfig
from mnemo.documents import Chunk
from mnemo.errors import LLMError
from mnemo.extract.grounding import GroundedEntity, Grounder
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_run import LLMRun
from ontology import DEFAULT_PATH as ONTOLOGY_PATH
from ontology import Ontology, load_ontology, parse_ontology
from tests.support.llm_stub import Reply, StubLLM, empty_reply, is_probe

ONTOLOGY = load_ontology()
OK = Reply(arguments={"ok": True})
ALICE = GroundedEntity("person_alice", "person", "Alice", ("Ali",), "alias")
ACME = {"id": "organization_acme", "kind": "organization", "name": "Acme"}
GOOD = {
    "entities": [{"id": "person_alice", "kind": "person", "name": "Ali"}, ACME],
    "relations": [{"type": "works_at", "source": "person_alice", "target": "organization_acme", "valid_from": "2026-03-01"}],
}


def _settings(stub: StubLLM, **changes: object) -> LLMConfig:
    return LLMConfig(**{"base_url": stub.url, "model": "stub-model", "retry_wait": 0.01, "timeout": 5, **changes})


def _chunk(cid: str, text: str) -> Chunk:
    return Chunk(id=cid, namespace="t", doc_id=f"doc_{cid}", position=0, heading="", text=text, path=f"{cid}.md",
                 title=cid, kind="note")


@pytest.mark.parametrize("mode", ["tools", "json_schema"])
def test_unknown_relation_type_is_rejected_and_reasked(mode: str) -> None:
    bad = {**GOOD, "relations": [{**GOOD["relations"][0], "type": "employed_by"}]}
    with StubLLM(script=[OK, Reply(arguments=bad), Reply(arguments=GOOD)]) as stub:
        extractor = LLMExtractor(_settings(stub, mode=mode), ONTOLOGY, "")
        extractor.probe()
        answer = extractor.extract(_chunk("c1", "Ali works at Acme since March."), [ALICE])
    assert [r["type"] for r in answer.extraction["relations"]] == ["works_at"]
    assert answer.dropped == 0 and extractor.usage.requests == 3
    reask = json.dumps(stub.requests[2]["messages"])
    assert "employed_by" in reask and "works_at" in reask and len(stub.requests[2]["messages"]) > 2
    assert ("tools" in stub.requests[1]) == (mode == "tools")


def test_items_still_invalid_after_the_reasks_are_dropped_and_counted() -> None:
    bad = {**GOOD, "relations": [*GOOD["relations"], {"type": "lives_in", "source": "person_alice", "target": "organization_acme"}]}
    with StubLLM(script=[Reply(arguments=bad), Reply(arguments=bad)]) as stub:
        extractor = LLMExtractor(_settings(stub, max_retries=1), ONTOLOGY, "")
        answer = extractor.extract(_chunk("c1", "Ali works at Acme."), [ALICE])
    assert len(stub.requests) == 2
    assert [r["type"] for r in answer.extraction["relations"]] == ["works_at"] and answer.dropped == 1


def test_rate_limits_are_retried_with_backoff() -> None:
    with StubLLM(script=[Reply(status=429), Reply(status=429), Reply(arguments=GOOD)]) as stub:
        extractor = LLMExtractor(_settings(stub, transient_retries=3), ONTOLOGY, "")
        answer = extractor.extract(_chunk("c1", "Ali works at Acme."), [ALICE])
    assert len(stub.requests) == 3 and answer.extraction["entities"][1]["id"] == "organization_acme"
    with StubLLM(script=[Reply(status=429)] * 3) as stub:
        extractor = LLMExtractor(_settings(stub, transient_retries=2), ONTOLOGY, "")
        with pytest.raises(LLMError, match="stub-model"):
            extractor.extract(_chunk("c1", "Ali works at Acme."), [ALICE])
    assert len(stub.requests) == 3


def test_probe_fails_naming_the_model_when_there_is_no_structured_output() -> None:
    with StubLLM(script=[Reply(text="Sure! Here you go: ok")]) as stub:
        extractor = LLMExtractor(_settings(stub), ONTOLOGY, "")
        with pytest.raises(LLMError, match=r"'stub-model' .* cannot produce structured output in tools mode"):
            extractor.probe()


def _grounder() -> Grounder:
    return Grounder({"person_alice": {"id": "person_alice", "kind": "person", "name": "Alice", "aliases": ["Ali"]}},
                    GroundingConfig(salient=0, neighbours=0))


def _run(tmp_path: Path, stub: StubLLM, chunks: list[Chunk], ontology: Ontology = ONTOLOGY, reextract: bool = False, **changes: object):
    run = LLMRun(ExtractionCache(tmp_path / "llm"), LLMExtractor(_settings(stub, **changes), ontology, ""), ontology)
    facts = run.run(chunks, _grounder(), reextract)
    return facts, run.stats


def test_timeout_falls_back_and_marks_the_chunk_pending_until_a_later_run(tmp_path: Path) -> None:
    chunks = [_chunk("c1", "Ali works at Acme."), _chunk("c2", "Ali lives in Lisbon.")]
    with StubLLM(script=[OK, Reply(arguments=GOOD), Reply(delay=1.0), Reply(delay=1.0)]) as stub:
        facts, stats = _run(tmp_path, stub, chunks, timeout=0.3, transient_retries=1)
    assert (stats.extracted, stats.failed) == (1, 1)
    assert [p["chunk_id"] for p in stats.pending] == ["c2"] and "timed out" in stats.pending[0]["reason"].lower()
    assert json.loads((tmp_path / "llm" / "pending.json").read_text())[0]["chunk_id"] == "c2"
    assert {r["src"] for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values()} == {"c1"}
    with StubLLM() as stub:
        _, stats = _run(tmp_path, stub, chunks)
    assert stub.prompts()[1].endswith("Ali lives in Lisbon.") and len(stub.requests) == 2
    assert (stats.extracted, stats.cached, stats.pending) == (1, 1, [])


def test_second_run_sends_nothing_for_unchanged_chunks_and_only_changed_ones_later(tmp_path: Path) -> None:
    chunks = [_chunk(f"c{i}", f"Ali met person number {i}.") for i in range(4)]
    with StubLLM() as stub:
        _run(tmp_path, stub, chunks)
        assert len(stub.requests) == 5  # the probe, then one per chunk
        assert all('"id": "person_alice"' in p for p in stub.prompts()[1:])
        _, stats = _run(tmp_path, stub, chunks)
        assert len(stub.requests) == 5 and stats.cached == 4
        chunks[2] = _chunk("c2", "Ali met someone new.")
        _, stats = _run(tmp_path, stub, chunks)
    assert len(stub.requests) == 7 and stub.prompts()[-1].endswith("Ali met someone new.")
    assert (stats.extracted, stats.cached) == (1, 3)


def _ontology_v2() -> Ontology:
    data = yaml.safe_load(ONTOLOGY_PATH.read_text(encoding="utf-8"))
    data["version"] = "test.2"
    data["relation_types"]["mentors"] = {
        "description": "The person mentors the other person.", "class": "semantic", "domain": ["person"], "range": ["person"],
    }
    return parse_ontology(data)


def _by_topic(request: dict) -> Reply:
    if is_probe(request):
        return OK
    prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
    if "Ali" in prompt:
        return Reply(arguments={"entities": [{"id": "person_alice", "kind": "person", "name": "Ali"}]})
    return Reply(arguments={"entities": [{"id": "place_porto", "kind": "place", "name": "Porto"}]})


def test_ontology_version_change_reextracts_only_affected_chunks_in_the_explicit_job(tmp_path: Path) -> None:
    chunks = [_chunk("people", "Ali gave a talk."), _chunk("places", "Porto is lovely in spring."), _chunk("more", "Porto again.")]
    with StubLLM(responder=_by_topic) as stub:
        _run(tmp_path, stub, chunks)
        assert len(stub.requests) == 4
        facts, stats = _run(tmp_path, stub, chunks, _ontology_v2())
        assert len(stub.requests) == 4 and stats.stale_reused == 3  # a normal run does not re-extract
        versions = {json.loads(r["props"])["ontology_version"] for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values()}
        assert versions == {ONTOLOGY.version}  # provenance says which ontology the answers were made under
        _, stats = _run(tmp_path, stub, chunks, _ontology_v2(), reextract=True)
        assert len(stub.requests) == 6 and stub.prompts()[-1].endswith("Ali gave a talk.")
        assert (stats.extracted, stats.carried_over) == (1, 2)
        _, stats = _run(tmp_path, stub, chunks, _ontology_v2(), reextract=True)
    assert len(stub.requests) == 6 and stats.cached == 3


def _refuse_tools(request: dict) -> Reply:
    return Reply(status=400) if request.get("tools") else empty_reply(request)


def test_auto_mode_probes_once_and_keeps_the_first_mode_that_validates() -> None:
    with StubLLM(responder=_refuse_tools) as stub:
        extractor = LLMExtractor(_settings(stub, mode="auto"), ONTOLOGY, "")
        extractor.probe()
        extractor.probe()
        extractor.extract(_chunk("c1", "Ali works at Acme."), [ALICE])
    assert extractor.mode == "json_schema" and len(stub.requests) == 3
    assert "tools" in stub.requests[0] and stub.requests[1]["response_format"]["type"] == "json_schema"


def test_auto_mode_names_every_refusal_when_no_mode_works() -> None:
    with StubLLM(responder=lambda request: Reply(status=400)) as stub:
        extractor = LLMExtractor(_settings(stub, mode="auto"), ONTOLOGY, "")
        with pytest.raises(LLMError, match=r"tools mode: HTTP 400.*json_schema mode: HTTP 400.*json mode: HTTP 400"):
            extractor.probe()
    assert len(stub.requests) == 3
