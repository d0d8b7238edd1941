"""How structured output is asked of an endpoint, and the probe that checks it works.

`tools` forces a function call, `json_schema` sends OpenAI's `response_format` with the
schema, `json` asks for a JSON object and puts the schema in the prompt. `auto` probes the
three in that order once and keeps the first that returns a valid answer. The probe treats an
HTTP error answer (other than a rate limit) as the endpoint refusing the mode, not as the
endpoint being down: llama.cpp's server, for one, answers OpenAI's `json_schema` form with 500.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from mnemo.config import LLMConfig
from mnemo.errors import LLMError

if TYPE_CHECKING:
    import instructor

MODES = {"tools": "TOOLS", "json_schema": "JSON_SCHEMA", "json": "JSON"}  # LLMConfig.mode -> instructor.Mode
AUTO_ORDER = ("tools", "json_schema", "json")
PROBE_PROMPT = "Reply with ok set to true."


class LLMUnavailable(LLMError):
    """The endpoint could not be reached (timeouts, connection or server errors, rate limits)."""


class ModeRefused(LLMError):
    """The endpoint answered, but not with valid structured output in the mode asked for."""


class _Probe(BaseModel):
    """Answer `ok: true`."""

    ok: bool


def llm_errors() -> tuple[type[Exception], type[Exception]]:
    """instructor's give-up error and openai's base error. openai and instructor are imported on
    first use (about 0.9 s): a run without an LLM never loads them."""
    import openai
    from instructor.core.exceptions import InstructorRetryException

    return InstructorRetryException, openai.OpenAIError


def _caused_by(exc: BaseException | None, kinds: tuple[type[Exception], ...]) -> bool:
    while exc is not None:
        if isinstance(exc, kinds):
            return True
        exc = exc.__cause__
    return False


def transient(exc: BaseException) -> bool:
    """Rate limits, timeouts, connection and server errors: worth another try."""
    import openai

    kinds = (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError, openai.InternalServerError)
    return _caused_by(exc, kinds)


def unreachable(exc: BaseException) -> bool:
    """Rate limits, timeouts and connection errors: the endpoint did not answer the question."""
    import openai

    return _caused_by(exc, (openai.RateLimitError, openai.APITimeoutError, openai.APIConnectionError))


def transient_retrying(settings: LLMConfig, retry_on: Callable[[BaseException], bool] = transient) -> Retrying:
    """Retries with exponential backoff for the errors `retry_on` accepts (by default, `transient`)."""
    return Retrying(
        retry=retry_if_exception(retry_on),
        stop=stop_after_attempt(settings.transient_retries + 1),
        wait=wait_exponential(multiplier=settings.retry_wait, max=30 * max(settings.retry_wait, 0.01)),
        reraise=True,
    )


def structured_client(settings: LLMConfig, api_key: str, mode: str | None = None) -> "instructor.Instructor":
    """An instructor client for the endpoint in `mode` (default: the configured one; `auto` is
    probed here). Transient errors are retried by the caller."""
    import instructor
    import openai

    chosen = mode or settings.mode
    if chosen == "auto":
        return choose_mode(settings, lambda m: structured_client(settings, api_key, m))[1]
    raw = openai.OpenAI(base_url=settings.base_url, api_key=api_key or "none", timeout=settings.timeout, max_retries=0)
    return instructor.from_openai(raw, mode=getattr(instructor.Mode, MODES[chosen]))


def _reason(exc: BaseException) -> str:
    """The innermost cause's first lines, on one line (instructor wraps them in its own text)."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    import openai

    if isinstance(exc, openai.APIStatusError):  # the server's own words, whitespace folded
        body = exc.body if isinstance(exc.body, dict) else {}
        return f"HTTP {exc.status_code}: " + " ".join(str(body.get("message", exc.message)).split())[:300]
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']} (got {e['input']!r})"
                         for e in exc.errors())[:300]
    return str(exc).splitlines()[0][:300]


def probe(client: "instructor.Instructor", settings: LLMConfig, mode: str) -> None:
    """One probe request; LLMUnavailable when the endpoint does not answer, ModeRefused when it
    answers with an error or with output that does not validate."""
    retry_error, api_error = llm_errors()
    where = f"LLM model {settings.model!r} at {settings.base_url}"
    try:
        transient_retrying(settings, unreachable)(
            client.chat.completions.create, model=settings.model, response_model=_Probe, max_retries=0,
            messages=[{"role": "user", "content": PROBE_PROMPT}],
        )
    except (retry_error, api_error, ValidationError) as exc:
        if unreachable(exc):
            raise LLMUnavailable(f"{where} is unreachable: {exc}") from exc
        raise ModeRefused(f"{where} cannot produce structured output in {mode} mode: {_reason(exc)}") from exc


def choose_mode(
    settings: LLMConfig, client_for: Callable[[str], "instructor.Instructor"],
) -> tuple[str, "instructor.Instructor"]:
    """The first mode of AUTO_ORDER whose probe validates, with its client; LLMError naming every
    mode's refusal when none does (LLMUnavailable at once when the endpoint does not answer)."""
    refusals: list[str] = []
    for mode in AUTO_ORDER:
        client = client_for(mode)
        try:
            probe(client, settings, mode)
        except ModeRefused as exc:
            refusals.append(str(exc))
            continue
        return mode, client
    raise LLMError("no structured-output mode works (auto tried " + ", ".join(AUTO_ORDER) + "): " + "; ".join(refusals))

