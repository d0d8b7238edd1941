"""One LLM extraction run over a namespace's chunks: cache first, the endpoint for the rest.

A chunk whose text, ontology version, prompt version and model are unchanged is answered
from the cache. After an ontology version change, a normal run keeps using the older
answers (re-validated against the new ontology); the explicit re-extraction run sends
only the chunks whose answers the change affects, and carries the others over. A chunk
that fails keeps its structural facts and is recorded as pending; the next run retries it.
"""

import json
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from mnemo.documents import Chunk, content_hash
from mnemo.errors import LLMError
from mnemo.extract.grounding import GroundedEntity, Grounder
from mnemo.extract.llm import Answer, LLMUnavailable
from mnemo.extract.llm_cache import CacheEntry, ExtractionCache, affected, cache_key
from mnemo.extract.llm_facts import add_extraction
from mnemo.facts import GraphFacts
from ontology import Ontology
from ontology.extraction import salvage


class ChunkExtractor(Protocol):
    @property
    def model(self) -> str: ...

    @property
    def prompt_version(self) -> str: ...

    def probe(self) -> None: ...

    def extract(self, chunk: Chunk, grounding: list[GroundedEntity]) -> Answer: ...


@dataclass
class LLMRunStats:
    chunks: int = 0
    extracted: int = 0
    cached: int = 0
    stale_reused: int = 0
    carried_over: int = 0
    failed: int = 0
    dropped: int = 0
    ungrounded: int = 0
    pending: list[dict[str, str]] = field(default_factory=list)


@dataclass
class _Plan:
    answers: dict[str, tuple[dict[str, Any], str]] = field(default_factory=dict)  # chunk -> (answer, ontology version)
    todo: list[Chunk] = field(default_factory=list)


def chunk_hash(chunk: Chunk) -> str:
    return content_hash(chunk.context_text)


class LLMRun:
    """Plans, runs and records one extraction run (see the module docstring)."""

    def __init__(
        self, cache: ExtractionCache, extractor: ChunkExtractor, ontology: Ontology, concurrency: int = 1
    ) -> None:
        self.cache = cache
        self.extractor = extractor
        self.ontology = ontology
        self.concurrency = concurrency
        self.stats = LLMRunStats()

    def _key(self, chunk: Chunk) -> str:
        return cache_key(chunk_hash(chunk), self.ontology.version, self.extractor.prompt_version, self.extractor.model)

    def plan(self, chunks: list[Chunk], reextract: bool) -> _Plan:
        plan = _Plan()
        current = self.ontology.snapshot()
        for chunk in chunks:
            entry = self.cache.get(self._key(chunk))
            if entry is not None:
                plan.answers[chunk.id] = (entry.data, entry.ontology_version)
                self.stats.cached += 1
                continue
            stale = self.cache.stale(
                chunk_hash(chunk), self.extractor.prompt_version, self.extractor.model, self.ontology.version
            )
            if stale is None or (
                reextract and affected(stale.data, self.cache.snapshot(stale.ontology_version), current)
            ):
                plan.todo.append(chunk)
                continue
            kept, dropped = salvage(self.ontology.extraction_model(), stale.data, self.ontology, {})
            plan.answers[chunk.id] = (kept.model_dump(), self.ontology.version if reextract else stale.ontology_version)
            if reextract:
                self._store(chunk, plan.answers[chunk.id][0], dropped)
                self.stats.carried_over += 1
            else:
                self.stats.stale_reused += 1
        return plan

    def _store(self, chunk: Chunk, extraction: dict[str, Any], dropped: int) -> None:
        self.cache.put(CacheEntry(
            self._key(chunk), chunk_hash(chunk), self.ontology.version, self.extractor.prompt_version,
            self.extractor.model, json.dumps(extraction, sort_keys=True, ensure_ascii=False), dropped,
        ))

    def _call(self, chunk: Chunk, grounding: list[GroundedEntity]) -> tuple[Chunk, Answer | None, str]:
        try:
            return chunk, self.extractor.extract(chunk, grounding), ""
        except LLMError as exc:
            return chunk, None, str(exc)

    def _pending(self, chunk: Chunk, reason: str) -> None:
        self.stats.failed += 1
        self.stats.pending.append({"chunk_id": chunk.id, "path": chunk.path, "reason": reason})

    def execute(self, plan: _Plan, grounder: Grounder) -> None:
        """Send the planned chunks, grounded per document batch, `concurrency` at a time.

        The endpoint is probed first: unreachable, every planned chunk becomes pending;
        unable to give structured output, the LLMError ends the run.
        """
        try:
            self.extractor.probe()
        except LLMUnavailable as exc:
            for chunk in plan.todo:
                self._pending(chunk, str(exc))
            return
        by_doc: dict[str, list[Chunk]] = defaultdict(list)
        for chunk in plan.todo:
            by_doc[chunk.doc_id].append(chunk)
        jobs: list[tuple[Chunk, list[GroundedEntity]]] = []
        for doc_chunks in by_doc.values():
            contexts = grounder.contexts(doc_chunks)
            jobs.extend((chunk, contexts[chunk.id]) for chunk in doc_chunks)
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            for chunk, answer, error in pool.map(lambda job: self._call(*job), jobs):
                if answer is None:
                    self._pending(chunk, error)
                    continue
                plan.answers[chunk.id] = (answer.extraction, self.ontology.version)
                self.stats.extracted += 1
                self.stats.dropped += answer.dropped
                self.stats.ungrounded += answer.ungrounded
                self._store(chunk, answer.extraction, answer.dropped + answer.ungrounded)

    def run(self, chunks: list[Chunk], grounder: Grounder, reextract: bool = False) -> GraphFacts:
        """The LLM facts of every chunk that has an answer; cache and pending list saved."""
        self.stats.chunks = len(chunks)
        plan = self.plan(chunks, reextract)
        if plan.todo:
            self.execute(plan, grounder)
        facts = GraphFacts()
        for chunk in sorted(chunks, key=lambda c: (c.doc_id, c.position)):
            if chunk.id in plan.answers:
                answer, version = plan.answers[chunk.id]
                add_extraction(facts, chunk, answer, self.ontology, model=self.extractor.model,
                               prompt_version=self.extractor.prompt_version, ontology_version=version)
        self.cache.save({chunk_hash(c) for c in chunks})
        self.cache.save_snapshot(self.ontology.snapshot())
        self.cache.write_pending(self.stats.pending)
        return facts

