"""Sleep mode's writing through the configured LLM: abstractive summaries of communities and
of the self portrait, each citing the chunks it rests on, and abstraction nodes for groups of
sibling entities ("iPhone" and "Pixel 8" are instances of "Smartphone").

The model only ever sees numbered source sentences (or a list of entities) and answers with
structured output that is validated before use: a citation must name a given source, an
abstraction's members must be among the given entities. A summary sentence that names an entity
its cited sources do not name is flagged (`stats.flagged`). Whatever fails, what was there stands
(the caller keeps the last run's row, or the extractive result when there is none); once the
endpoint cannot be reached or times out, the writer asks nothing more in this run (`stats.skipped`).
Nothing here is required for sleep mode to work offline.
"""

import os
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, field_validator, model_validator

from mnemo.config import LLMConfig
from mnemo.documents import normalize_name
from mnemo.extract.llm import llm_errors, structured_client, transient_retrying
from mnemo.extract.llm_modes import unreachable
from mnemo.sleep.summary_check import unsupported_names
from mnemo.sleep.text import Sentence, mmr

SLEEP_PROMPT_VERSION = "sleep-2026.11.1"
MAX_SOURCES = 12
MAX_ANSWER_TOKENS = 300  # a summary of two to four sentences; a rambling answer is cut (and fails validation)

SYSTEM = (
    "You consolidate one person's memory while they sleep. Use only the material given; never add facts. "
    "Be brief and concrete."
)


MAX_SUMMARY = 1500
MAX_CONCEPT = 80
MIN_SUMMARY_LETTERS = 12  # a placeholder ("0", "summary", as a 270M model answers) is not a summary
_LETTER = re.compile(r"[^\W\d_]")
ANSWER_FORMAT = ("Answer with summary: two to four sentences using only facts from the sources, and citations: "
                 "the numbers of the sources those sentences rest on.")  # for templates that drop the tool's schema


def _at_most(value: str, limit: int) -> str:
    """Lengths are checked here, not in the JSON schema: llama.cpp's server turns a schema's
    `maxLength` into a grammar rule nested that many times, and a large one crashes it."""
    if len(value) > limit:
        raise ValueError(f"longer than {limit} characters")
    return value


class CitedSummary(BaseModel):
    """A short abstractive summary of the numbered source sentences."""

    summary: str = Field(min_length=1, description="Two to four sentences stating only facts from the sources.")
    citations: list[int] = Field(min_length=1, description="The numbers of the sources the summary rests on.")

    @field_validator("summary")
    @classmethod
    def a_few_sentences(cls, value: str) -> str:
        if len(_LETTER.findall(value)) < MIN_SUMMARY_LETTERS:
            raise ValueError(f"{value!r} is not a summary (fewer than {MIN_SUMMARY_LETTERS} letters)")
        return _at_most(value, MAX_SUMMARY)

    @field_validator("citations")
    @classmethod
    def cite_given_sources(cls, value: list[int], info: ValidationInfo) -> list[int]:
        count = (info.context or {}).get("sources", 0)
        wrong = [n for n in value if not 0 <= n < count]
        if wrong:
            raise ValueError(f"citations {wrong} are not source numbers (0..{count - 1})")
        return sorted(set(value))


class Abstraction(BaseModel):
    """A more general concept that several of the listed entities are instances of, if any."""

    concept: str | None = Field(default=None,
                                description="The general concept's name, e.g. 'Smartphone'; null when they share none.")
    members: list[str] = Field(default_factory=list, description="Ids of the listed entities that are instances of it.")

    @field_validator("concept")
    @classmethod
    def short_name(cls, value: str | None) -> str | None:
        return None if value is None else _at_most(value, MAX_CONCEPT)

    @model_validator(mode="after")
    def members_are_listed(self, info: ValidationInfo) -> "Abstraction":
        if not self.concept or not self.concept.strip():
            self.concept, self.members = None, []
            return self
        names = (info.context or {}).get("entities", {})
        unknown = sorted(set(self.members) - set(names))
        if unknown:
            raise ValueError(f"members {unknown} are not among the listed entity ids")
        if len(set(self.members)) < 2:
            raise ValueError("an abstraction needs at least two of the listed entities, or concept null")
        if normalize_name(self.concept) in {normalize_name(n) for n in names.values()}:
            raise ValueError(f"{self.concept!r} is one of the listed entities, not a more general concept")
        self.members = sorted(set(self.members))
        return self


M = TypeVar("M", bound=BaseModel)


@dataclass
class WriterStats:
    requests: int = 0
    failures: int = 0
    skipped: int = 0  # not asked: the endpoint was unreachable earlier in the run
    flagged: list[dict[str, Any]] = field(default_factory=list)  # topic, sentence, names not in the sources


class SleepWriter:
    """Asks one OpenAI-compatible endpoint for validated, cited writing."""

    def __init__(self, settings: LLMConfig, api_key: str) -> None:
        self.settings = settings
        self.client = structured_client(settings, api_key)
        self.stats = WriterStats()
        self.unavailable = False

    @property
    def model(self) -> str:
        return self.settings.model

    def _ask(self, model: type[M], prompt: str, context: dict[str, Any]) -> M | None:
        if self.unavailable:
            self.stats.skipped += 1
            return None
        self.stats.requests += 1
        retry_error, api_error = llm_errors()
        try:
            return transient_retrying(self.settings)(
                self.client.chat.completions.create, model=self.model, response_model=model,
                messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                max_retries=self.settings.max_retries, context=context, max_tokens=MAX_ANSWER_TOKENS,
            )
        except (retry_error, api_error, ValidationError) as exc:
            self.stats.failures += 1
            self.unavailable = unreachable(exc)
            return None

    def summary(
        self, topic: str, pool: Sequence[Sentence], names: Collection[str] = ()
    ) -> tuple[str, list[str]] | None:
        """An abstractive summary of the best sentences of `pool` and the chunk ids it cites;
        None when there is nothing to summarize or the model failed. Its sentences that name one
        of the entity `names` the cited sources do not name are flagged."""
        sources = mmr(list(pool), MAX_SOURCES)
        if not sources:
            return None
        numbered = "\n".join(f"[{n}] {s.text}" for n, s in enumerate(sources))
        prompt = f"Summarize what these notes say about {topic}.\nSources:\n{numbered}\n{ANSWER_FORMAT}"
        answer = self._ask(CitedSummary, prompt, {"sources": len(sources)})
        if answer is None:
            return None
        text = answer.summary.strip()
        for sentence, named in unsupported_names(text, [sources[n].text for n in answer.citations], names):
            self.stats.flagged.append({"topic": topic, "sentence": sentence, "names": named})
        return text, sorted({sources[n].chunk_id for n in answer.citations})

    def abstraction(self, entities: dict[str, str], kind: str) -> Abstraction | None:
        """The general concept some of `entities` (id -> name, all of `kind`) are instances of."""
        listed = "\n".join(f"- {eid}: {name}" for eid, name in sorted(entities.items()))
        prompt = (f"These {kind} entities come up together in the person's notes:\n{listed}\n"
                  "If at least two of them are instances of one more general concept (for example 'iPhone' and "
                  "'Galaxy S24' are instances of 'Smartphone'), name that concept and list those members' ids. "
                  "Otherwise answer with concept null.")
        return self._ask(Abstraction, prompt, {"entities": entities})


def writer_for(settings: LLMConfig | None, enabled: bool = True) -> SleepWriter | None:
    """The writer for the configured LLM (API key from `api_key_env`), or None offline."""
    if settings is None or not enabled:
        return None
    return SleepWriter(settings, os.environ.get(settings.api_key_env, ""))
