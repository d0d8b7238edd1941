"""The assembled context of a recall (`RecallResult.text`, and the memories `before_turn` puts in
a prompt): items best first, as many as the token budget holds. When the budget is tight, sleep
mode's progressive summaries earn their place: a passage that no longer fits is represented by
the summary of its period that cites it (`summarized_by`), once, if that fits. The best-ranked
passages are always given in full; a summary only stands in for lower-ranked ones."""

from collections.abc import Callable
from typing import Any, Protocol


class ContextItem(Protocol):
    id: str
    kind: str
    text: str
    title: str
    heading: str
    timestamp: str
    metadata: dict[str, Any]


def word_tokens(line: str) -> int:
    """A rough token count: 1.3 tokens a word, plus one for the line."""
    return int(len(line.split()) * 1.3) + 1


def item_line(item: ContextItem) -> str:
    """`- [date] title › heading: text`, or `- text` for an item with no title."""
    where = " › ".join(p for p in (item.title, item.heading) if p)
    return f"- [{item.timestamp[:10]}] {where}: {item.text}" if where else f"- {item.text}"


def summary_line(summary: dict[str, Any]) -> str:
    """A summary standing in for passages: `- [summary of <level> <period>] text`."""
    return f"- [summary of {summary['level']} {summary['period']}] {summary['text']}"


def context_lines(items: list[ContextItem], budget: int, cost: Callable[[str], int] = word_tokens,
                  line_of: Callable[[ContextItem], str] = item_line) -> list[str]:
    """The lines of the items that fit in `budget` (the first always does), in rank order, with a
    period's summary standing in for passages that do not fit (see the module)."""
    lines: list[str] = []
    shown: set[str] = set()
    used = 0
    for item in items:
        if item.id in shown:
            continue
        options = [(item.id, line_of(item))]
        stand_in = item.metadata.get("summarized_by") if item.kind == "chunk" else None
        if stand_in and stand_in["id"] not in shown:
            options.append((stand_in["id"], summary_line(stand_in)))
        for key, line in options:
            spent = cost(line)
            if not lines or used + spent <= budget:
                lines.append(line)
                shown.add(key)
                used += spent
                break
    return lines
