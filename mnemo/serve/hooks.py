"""Chat middleware: ask memory for context before each turn, hand the exchange back after.

    context = before_turn("sam", messages)          # a block for the system prompt
    reply = llm(system=context, messages=messages)
    after_turn("sam", messages + [reply])           # remembered and recallable now

Messages are OpenAI-style dicts (`{"role": "user", "content": "..."}`). Give both a
`client=MemoryClient(...)` held across turns: what recall reads on every call (its namespace
session) is then kept between turns; without one, each call opens the namespace anew.
"""

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from mnemo.recall.context import context_lines
from mnemo.serve.activity import last_interaction, mark_interaction, timeline, top_of_mind
from mnemo.sources.memory_files import Memory

TOKEN_BUDGET = 800
GRAPH_TTL = 60.0


def _cached(client: MemoryClient, key: str, compute: Callable[[], Any]) -> Any:
    """Graph answers that change only with ingest or sleep mode, kept GRAPH_TTL seconds in the
    client's session so a turn does not reopen the graph for them."""
    return client.files.session.fresh(("before_turn", key), GRAPH_TTL, compute)


def tokens(text: str) -> int:
    """A cheap token estimate (about four characters a token), good enough for budgets."""
    return (len(text) + 3) // 4


def latest_user_message(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _since_text(last: str | None, now: dt.datetime) -> str | None:
    if not last:
        return None
    try:
        then = dt.datetime.fromisoformat(last)
    except ValueError:
        return None
    if then.tzinfo is None and now.tzinfo is not None:
        then = then.replace(tzinfo=now.tzinfo)
    seconds = max(0, int((now - then).total_seconds()))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"Last talked {count} {unit}{'s' if count != 1 else ''} ago ({last})."
    return f"Last talked moments ago ({last})."


def _sections(client: MemoryClient, query: str, now: dt.datetime, budget: int) -> list[tuple[str, list[str]]]:
    sections: list[tuple[str, list[str]]] = []
    if query.strip():
        result = client.recall(query, k=8, mode="eager")
        items = [i for i in result.items if i.text.strip()]
        lines = context_lines(items, budget, lambda line: tokens(line) + 1, lambda i: f"- {_one_line(i.text)}")  # type: ignore[arg-type]
        sections.append(("Relevant memories", [" ".join(line.split()) for line in lines]))
    last = last_interaction(client)
    since = _since_text(last, now)
    if since:
        happened = _cached(client, f"timeline:{last}:{now:%Y-%m-%dT%H:%M}",
                           lambda: timeline(client, since=last, until=now.isoformat(timespec="seconds"), limit=10))
        lines = [since] + [f"- note: {_one_line(n['title'] or n['path'])} ({n['at']})" for n in happened["notes"]]
        lines += [
            f"- conversation: {_one_line(e['title'] or e['source'] or e['id'])} ({e['at']})"
            for e in happened["episodes"]
        ]
        sections.append(("Since the last conversation", lines))
    top = _cached(client, "top_of_mind", lambda: top_of_mind(client, limit=8))
    sections.append(("Top of mind", [f"- {_one_line(t['name'])}" for t in top["items"] if t.get("name")]))
    return sections


def before_turn(namespace: str, messages: list[dict[str, Any]], now: dt.datetime | None = None, *,
                config: str | Path | None = None, token_budget: int = TOKEN_BUDGET,
                client: MemoryClient | None = None) -> str:
    """A context block for the system prompt, at most `token_budget` tokens: eager recall for
    the latest user message, the time since the last interaction and what happened meanwhile,
    and the top-of-mind items. Empty when memory has nothing to say."""
    client = client or MemoryClient(namespace, config)
    now = now or dt.datetime.now(dt.UTC)
    lines: list[str] = []
    used = 0
    for title, body in _sections(client, latest_user_message(messages), now, token_budget):
        header = f"## {title}"
        fitting: list[str] = []
        spent = tokens(header) + 1
        for line in body:
            cost = tokens(line) + 1
            if used + spent + cost <= token_budget:
                fitting.append(line)
                spent += cost
        if fitting:
            lines += [header, *fitting]
            used += spent
    return "\n".join(lines)


def after_turn(namespace: str, messages: list[dict[str, Any]], now: dt.datetime | None = None, *,
               config: str | Path | None = None, client: MemoryClient | None = None) -> Memory:
    """Remember the latest exchange (the last user message and what followed) durably, now;
    it is recallable at once (status `recallable`)."""
    client = client or MemoryClient(namespace, config)
    start = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=None)
    if start is None:
        raise MnemoError("after_turn needs at least one user message")
    exchange = [m for m in messages[start:] if isinstance(m.get("content"), str) and m["content"].strip()]
    text = "\n".join(f"{m.get('role', 'unknown')}: {m['content'].strip()}" for m in exchange)
    memory = client.remember(text)
    mark_interaction(client, now or dt.datetime.now(dt.UTC))
    return memory
