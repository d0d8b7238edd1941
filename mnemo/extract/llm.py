"""The LLM extractor: instructor over any OpenAI-compatible endpoint.

Validation errors are sent back to the model (instructor's re-ask, bounded by
`max_retries`); an answer still invalid after that keeps its valid items and counts the
dropped ones. A re-ask that the server refuses because the conversation outgrew its context
window ends the re-asking: the last answer is salvaged the same way. A first prompt that does
not fit is an LLMError saying so (the chunk goes on the pending list). Whatever survives is then
held to the chunk's evidence (`evidence.grounded_answer`); what the chunk does not show is
dropped and counted as ungrounded. Rate limits, timeouts, connection and server errors are
retried with exponential backoff (tenacity, `transient_retries`); when those run out the chunk
fails with an LLMError and the caller falls back to the structural result.
"""

import json
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from tenacity import Retrying

from mnemo.config import LLMConfig
from mnemo.documents import Chunk
from mnemo.errors import LLMError
from mnemo.extract.evidence import grounded_answer
from mnemo.extract.grounding import GroundedEntity
from mnemo.extract.llm_modes import (
    AUTO_ORDER,
    LLMUnavailable,
    choose_mode,
    llm_errors,
    probe,
    structured_client,
    transient_retrying,
)
from mnemo.extract.prompt import PROMPT_VERSION, messages
from ontology import Ontology
from ontology.extraction import salvage

if TYPE_CHECKING:
    import instructor

__all__ = ["LLMUnavailable", "llm_errors", "structured_client", "transient_retrying"]


@dataclass
class Usage:
    """Requests and tokens spent (every attempt counts, failed ones too)."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def cost(self, settings: LLMConfig) -> float:
        return (
            self.prompt_tokens * settings.input_cost_per_mtok + self.completion_tokens * settings.output_cost_per_mtok
        ) / 1e6


@dataclass
class Answer:
    """A validated extraction of one chunk, as plain data, and how many items were dropped."""

    extraction: dict[str, Any]
    dropped: int = 0
    ungrounded: int = 0  # items the chunk gives no evidence for (see `evidence`)


def _validation_failure(exc: Exception) -> bool:
    return isinstance(exc.__cause__, (ValidationError, json.JSONDecodeError))


_CONTEXT_OVERFLOW = re.compile(r"context (window|length)|maximum context|too many tokens", re.IGNORECASE)


def context_overflow(exc: BaseException | None) -> bool:
    """Whether the server refused the request because it does not fit the model's context window
    (llama.cpp: "Requested tokens (N) exceed context window of M"; OpenAI: "maximum context length")."""
    import openai

    while exc is not None:
        if isinstance(exc, openai.BadRequestError) and _CONTEXT_OVERFLOW.search(str(exc)):
            return True
        exc = exc.__cause__
    return False


def _raw_arguments(completion: Any) -> dict[str, Any]:
    """The JSON the model answered with, from a tool call or from the message content."""
    message = completion.choices[0].message
    text = message.tool_calls[0].function.arguments if message.tool_calls else message.content
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


class LLMExtractor:
    """Extracts ontology-typed entities and relations from chunks through one endpoint."""

    def __init__(self, settings: LLMConfig, ontology: Ontology, api_key: str) -> None:
        self.settings = settings
        self.ontology = ontology
        self.prompt_version = PROMPT_VERSION
        self._api_key = api_key
        self.mode: str = settings.mode  # `auto` until the probe chooses one
        self.client = self._client(AUTO_ORDER[0] if settings.mode == "auto" else settings.mode)
        self.response_model = ontology.extraction_model()
        self.usage = Usage()
        self._lock = threading.Lock()
        self._probe_lock = threading.Lock()
        self._probed = False

    @property
    def model(self) -> str:
        return self.settings.model

    def _count_request(self, *args: Any, **kwargs: Any) -> None:
        with self._lock:
            self.usage.requests += 1

    def _count_usage(self, response: Any) -> None:
        usage = getattr(response, "usage", None)
        if usage is not None:
            with self._lock:
                self.usage.prompt_tokens += usage.prompt_tokens or 0
                self.usage.completion_tokens += usage.completion_tokens or 0

    def _client(self, mode: str) -> "instructor.Instructor":
        client = structured_client(self.settings, self._api_key, mode)
        client.on("completion:kwargs", self._count_request)
        client.on("completion:response", self._count_usage)
        return client

    def probe(self) -> None:
        """Check once that the endpoint returns structured output (in `auto` mode: choose the
        first mode that does); fail naming the model and the mode.

        LLMUnavailable when it cannot be reached at all (the run goes on structurally);
        LLMError when it answers but not with the structured output mnemo needs.
        """
        with self._probe_lock:
            if self._probed:
                return
            if self.settings.mode == "auto":
                self.mode, self.client = choose_mode(self.settings, self._client)
            else:
                probe(self.client, self.settings, self.mode)
            self._probed = True

    def _retrying(self) -> Retrying:
        return transient_retrying(self.settings)

    def extract(self, chunk: Chunk, grounding: list[GroundedEntity]) -> Answer:
        """One chunk's validated extraction, held to the chunk's evidence; LLMError when the endpoint
        keeps failing or the chunk does not fit the model's context window."""
        if self.mode == "auto":
            self.probe()
        answer = self._validated(chunk, grounding)
        kept, ungrounded = grounded_answer(answer.extraction, chunk, grounding, self.ontology)
        return Answer(kept, answer.dropped, ungrounded)

    def _validated(self, chunk: Chunk, grounding: list[GroundedEntity]) -> Answer:
        known = {g.id: g.kind for g in grounding}
        retry_error, api_error = llm_errors()
        try:
            result = self._retrying()(
                self.client.chat.completions.create, model=self.model, response_model=self.response_model,
                messages=messages(self.ontology, chunk, grounding), max_retries=self.settings.max_retries,
                context={"known": known}, **self._answer_cap(),
            )
        except retry_error as exc:
            last = exc.last_completion  # type: ignore[attr-defined]
            if last is not None and (_validation_failure(exc) or context_overflow(exc)):
                kept, dropped = salvage(self.response_model, _raw_arguments(last), self.ontology, known)
                return Answer(kept.model_dump(), dropped)
            raise LLMError(self._failure(chunk, exc.__cause__ or exc)) from exc
        except api_error as exc:
            raise LLMError(self._failure(chunk, exc)) from exc
        return Answer(result.model_dump())

    def _answer_cap(self) -> dict[str, int]:
        return {"max_tokens": self.settings.max_tokens} if self.settings.max_tokens else {}

    def _failure(self, chunk: Chunk, exc: BaseException) -> str:
        if context_overflow(exc):
            return f"{chunk.path}: does not fit model {self.model!r}'s context window: {exc}"
        return f"{chunk.path}: model {self.model!r} failed: {exc}"
