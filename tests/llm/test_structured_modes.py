"""Every structured-output mode against llama.cpp's real server (Gemma 3 270M): what each does.

Observed with llama-cpp-python 0.3.36: `tools` (a forced function call) validates; `json_schema`
(OpenAI's `response_format` form) is answered with HTTP 500, the server accepting only `text` or
`json_object`; `json` reaches the model but this small model's answers to the probe do not
validate (`{}`, `{"result": "ok"}`). `auto` therefore settles on `tools`.
"""

import pytest

from mnemo.config import LLMConfig
from mnemo.documents import Chunk
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_modes import ModeRefused, probe, structured_client
from ontology import load_ontology
from tests.llm.conftest import LlamaServer

pytestmark = [pytest.mark.llm, pytest.mark.slow]

ONTOLOGY = load_ontology()
TEXT = "Alice Chen leads Project Heron at Acme Robotics in Lisbon; Bob Martins writes the firmware."


def _settings(server: LlamaServer, mode: str) -> LLMConfig:
    return LLMConfig(base_url=server.url, model=server.model, mode=mode, timeout=600, transient_retries=1,
                     retry_wait=0.1, max_retries=1, max_tokens=300)  # type: ignore[arg-type]


def test_tools_mode_answers_the_probe(llama_server: LlamaServer) -> None:
    settings = _settings(llama_server, "tools")
    probe(structured_client(settings, "", "tools"), settings, "tools")


def test_json_schema_mode_is_refused_naming_the_mode_and_the_server_reason(llama_server: LlamaServer) -> None:
    settings = _settings(llama_server, "json_schema")
    with pytest.raises(ModeRefused, match=r"in json_schema mode: HTTP 500: .*'text' or 'json_object'"):
        probe(structured_client(settings, "", "json_schema"), settings, "json_schema")


def test_json_mode_reaches_the_model_and_is_judged_on_its_answer(llama_server: LlamaServer) -> None:
    """The request is accepted (no HTTP error); the 270M model's JSON does not fit the probe's schema."""
    settings = _settings(llama_server, "json")
    with pytest.raises(ModeRefused, match=r"in json mode: ok: Field required") as refused:
        probe(structured_client(settings, "", "json"), settings, "json")
    assert "HTTP" not in str(refused.value)


def test_auto_probes_once_and_keeps_tools(llama_server: LlamaServer) -> None:
    extractor = LLMExtractor(_settings(llama_server, "auto"), ONTOLOGY, "")
    extractor.probe()
    extractor.probe()
    assert (extractor.mode, extractor.usage.requests) == ("tools", 1)


def test_tools_mode_extracts_typed_entities_from_a_chunk(llama_server: LlamaServer) -> None:
    extractor = LLMExtractor(_settings(llama_server, "auto"), ONTOLOGY, "")
    chunk = Chunk(id="c1", namespace="t", doc_id="d1", position=0, heading="", text=TEXT, path="heron.md",
                  title="Heron", kind="note")
    answer = extractor.extract(chunk, [])
    print(extractor.mode, answer)
    kinds = {e["kind"] for e in answer.extraction["entities"]}
    assert extractor.mode == "tools" and kinds <= set(ONTOLOGY.entity_types)
