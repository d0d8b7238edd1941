"""What an LLM answer keeps: only what the chunk shows; a re-ask past the context window; a chunk too long."""

from pathlib import Path

from mnemo.config import GroundingConfig, LLMConfig
from mnemo.documents import Chunk
from mnemo.extract.grounding import GroundedEntity, Grounder
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_run import LLMRun
from ontology import load_ontology
from tests.support.llm_stub import Reply, StubLLM

ONTOLOGY = load_ontology()
OVERFLOW = "Requested tokens (2101) exceed context window of 2048"
PROMPT_EXAMPLE = {  # what Gemma 3 270M answered for a kepano note: the ids of the prompt's own example
    "entities": [],
    "relations": [{"type": "related_to", "source": "person_alice_chen", "target": "place_porto"}],
}


def _settings(stub: StubLLM, **changes: object) -> LLMConfig:
    return LLMConfig(**{"base_url": stub.url, "model": "stub-model", "retry_wait": 0.01, "timeout": 5, **changes})


def _chunk(cid: str, text: str) -> Chunk:
    return Chunk(id=cid, namespace="t", doc_id=f"doc_{cid}", position=0, heading="", text=text, path=f"{cid}.md",
                 title="Evergreen notes", kind="note")


def _extract(script: list[Reply], text: str, grounding: list[GroundedEntity] | None = None) -> object:
    with StubLLM(script=script) as stub:
        return LLMExtractor(_settings(stub, max_retries=1), ONTOLOGY, "").extract(_chunk("c1", text), grounding or [])


def test_ids_copied_from_the_prompt_example_are_dropped_and_counted() -> None:
    answer = _extract([Reply(arguments=PROMPT_EXAMPLE)], "Write notes that compound over time.")
    assert answer.extraction["relations"] == [] and answer.ungrounded == 1  # type: ignore[attr-defined]


def test_entities_the_chunk_does_not_name_are_dropped_with_their_relations() -> None:
    said = {
        "entities": [{"id": "person_ines_carvalho", "kind": "person", "name": "Inês Carvalho"},
                     {"id": "organization_tidewater", "kind": "organization", "name": "Tidewater"},
                     {"id": "person_bob_martins", "kind": "person", "name": "Bob Martins"}],
        "relations": [{"type": "works_at", "source": "person_ines_carvalho", "target": "organization_tidewater"},
                      {"type": "works_at", "source": "person_bob_martins", "target": "organization_tidewater"}],
    }
    answer = _extract([Reply(arguments=said)], "Ines Carvalho joined TIDEWATER in May.")
    kept = answer.extraction  # type: ignore[attr-defined]
    assert [e["id"] for e in kept["entities"]] == ["person_ines_carvalho", "organization_tidewater"]
    assert [r["source"] for r in kept["relations"]] == ["person_ines_carvalho"]
    assert answer.ungrounded == 2  # type: ignore[attr-defined]


def test_a_grounding_entity_named_by_its_alias_and_a_new_id_named_by_its_slug_stand() -> None:
    alice = GroundedEntity("person_alice", "person", "Alice", ("Ali",), "alias")
    said = {"entities": [], "relations": [{"type": "lives_in", "source": "person_alice", "target": "place_porto"}]}
    answer = _extract([Reply(arguments=said)], "Ali moved to Porto.", [alice])
    assert len(answer.extraction["relations"]) == 1 and answer.ungrounded == 0  # type: ignore[attr-defined]


def test_a_reask_past_the_context_window_keeps_what_the_last_answer_had() -> None:
    bad = {"entities": [{"id": "organization_acme", "kind": "organization", "name": "Acme"}],
           "relations": [{"type": "lives_in", "source": "organization_acme", "target": "organization_acme"}]}
    with StubLLM(script=[Reply(arguments=bad), Reply(status=400, message=OVERFLOW)]) as stub:
        extractor = LLMExtractor(_settings(stub, max_retries=2), ONTOLOGY, "")
        answer = extractor.extract(_chunk("c1", "Acme builds robots."), [])
    assert len(stub.requests) == 2
    assert [e["id"] for e in answer.extraction["entities"]] == ["organization_acme"] and answer.dropped == 1


def test_a_chunk_that_does_not_fit_the_context_window_is_pending_with_the_reason(tmp_path: Path) -> None:
    chunk = _chunk("c1", "A very long passage.")
    with StubLLM(script=[Reply(arguments={"ok": True}), Reply(status=400, message=OVERFLOW)]) as stub:
        run = LLMRun(ExtractionCache(tmp_path / "cache"), LLMExtractor(_settings(stub), ONTOLOGY, ""), ONTOLOGY)
        run.run([chunk], Grounder({}, GroundingConfig()))
    assert run.stats.failed == 1
    assert "does not fit model 'stub-model''s context window" in run.stats.pending[0]["reason"]
    assert ExtractionCache(tmp_path / "cache").read_pending()[0]["chunk_id"] == "c1"
