"""Extraction through llama.cpp's real server (Gemma 3 270M): what the model answers is held to the
chunk's evidence, and a chunk the context window cannot hold is pending with that reason."""

from collections.abc import Callable
from pathlib import Path

import pytest

from mnemo.config import GroundingConfig, LLMConfig
from mnemo.documents import Chunk, NamedWords
from mnemo.extract.grounding import Grounder
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_run import LLMRun
from ontology import load_ontology
from tests.llm.conftest import LlamaServer

pytestmark = [pytest.mark.llm, pytest.mark.slow]

ONTOLOGY = load_ontology()
NO_NAMES = ("Evergreen notes turn ideas into objects. By turning ideas into objects you can manipulate them, "
            "combine them, stack them.")


def _settings(server: LlamaServer) -> LLMConfig:
    return LLMConfig(base_url=server.url, model=server.model, mode="tools", timeout=900, transient_retries=0,
                     retry_wait=0.1, max_retries=1, max_tokens=300)


def _chunk(text: str) -> Chunk:
    return Chunk(id="c1", namespace="t", doc_id="d1", position=0, heading="", text=text, path="evergreen.md",
                 title="Evergreen notes", kind="note")


def test_what_the_model_keeps_is_named_in_the_chunk(llama_server: LlamaServer) -> None:
    chunk = _chunk(NO_NAMES)
    extractor = LLMExtractor(_settings(llama_server), ONTOLOGY, "")
    answer = extractor.extract(chunk, [])
    print("kept:", answer.extraction, "dropped:", answer.dropped, "ungrounded:", answer.ungrounded)
    words = NamedWords(chunk.context_text)
    kept = answer.extraction
    assert all(words.names_any([e["name"], *e.get("aliases", [])]) for e in kept["entities"])
    named = {e["id"] for e in kept["entities"]}
    assert all(r["source"] in named or words.names_any([r["source"].split("_", 1)[-1].replace("_", " ")])
               for r in kept["relations"])


def test_a_chunk_the_context_window_cannot_hold_is_pending_with_the_reason(
    tmp_path: Path, llama_at: Callable[[int], LlamaServer],
) -> None:
    small = llama_at(512)  # the probe fits; the extraction prompt (ontology and passage) does not
    run = LLMRun(ExtractionCache(tmp_path / "cache"), LLMExtractor(_settings(small), ONTOLOGY, ""), ONTOLOGY)
    run.run([_chunk(NO_NAMES)], Grounder({}, GroundingConfig()))
    print(run.stats.pending)
    assert run.stats.failed == 1 and "context window" in run.stats.pending[0]["reason"]
    assert ExtractionCache(tmp_path / "cache").read_pending()[0]["chunk_id"] == "c1"
    assert small.process.poll() is None
