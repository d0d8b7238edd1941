"""Dates named in a question ("on July 14, 2022", "in March 2021", "last week") as the span of
days they mean, so that eager recall can put what was written or said then first."""

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numpy as np

from mnemo.recall.rank import Pool

MONTHS = {name: n for n, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
    ("december", "dec")), 1) for name in names}
_MONTH = "(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"((?:19|20)\d\d)"
_PATTERNS = (
    ("mdy", re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b")),
    ("dmy", re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b")),
    ("iso", re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")),
    ("my", re.compile(rf"\b{_MONTH}\s+(?:of\s+)?{_YEAR}\b")),
    ("y", re.compile(rf"\b(?:in|during)\s+{_YEAR}\b")),
)
_RELATIVE = re.compile(r"\b(today|yesterday|this week|last week|this month|last month|this year|last year)\b")


@dataclass(frozen=True)
class DaySpan:
    """The days from `first` to `last`, inclusive."""

    first: date
    last: date

    @property
    def since(self) -> str:
        return self.first.isoformat()

    @property
    def until(self) -> str:
        """An upper bound that every ISO timestamp of the last day sorts below."""
        return self.last.isoformat() + "~"

    def holds(self, stamp: str) -> bool:
        return bool(stamp) and self.since <= stamp <= self.until


def dates_in(question: str, today: date) -> DaySpan | None:
    """The span of the first date the question names, or None (impossible dates are ignored)."""
    text = question.lower()
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = _span(kind, match.groups())
            if span is not None:
                return span
    relative = _RELATIVE.search(text)
    return _relative(relative.group(1), today) if relative else None


def _span(kind: str, parts: tuple[str, ...]) -> DaySpan | None:
    try:
        if kind == "mdy":
            day = date(int(parts[2]), MONTHS[parts[0]], int(parts[1]))
        elif kind == "dmy":
            day = date(int(parts[2]), MONTHS[parts[1]], int(parts[0]))
        elif kind == "iso":
            day = date(int(parts[0]), int(parts[1]), int(parts[2]))
        elif kind == "my":
            return _month(int(parts[1]), MONTHS[parts[0]])
        else:
            return DaySpan(date(int(parts[0]), 1, 1), date(int(parts[0]), 12, 31))
    except ValueError:
        return None
    return DaySpan(day, day)


def _month(year: int, month: int) -> DaySpan:
    first = date(year, month, 1)
    return DaySpan(first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1))


def _relative(phrase: str, today: date) -> DaySpan:
    monday = today - timedelta(days=today.weekday())
    spans = {
        "today": lambda: DaySpan(today, today),
        "yesterday": lambda: DaySpan(today - timedelta(days=1), today - timedelta(days=1)),
        "this week": lambda: DaySpan(monday, today),
        "last week": lambda: DaySpan(monday - timedelta(days=7), monday - timedelta(days=1)),
        "this month": lambda: DaySpan(today.replace(day=1), today),
        "last month": lambda: _month(*((today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12))),
        "this year": lambda: DaySpan(date(today.year, 1, 1), today),
        "last year": lambda: DaySpan(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)),
    }
    return spans[phrase]()


def add_dated(pool: Pool, rows: list[dict[str, Any]], vector: np.ndarray, cosine_weight: float) -> None:
    """The passages of the days the question names (`rows`, nearest the query first) join the
    pool, scored by their cosine alone when the searches did not reach them."""
    norm = float(np.linalg.norm(vector)) or 1.0
    for row in rows:
        if row["id"] not in pool.scores:
            row_vector = np.asarray(row["vector"], dtype=np.float32)
            cosine = float(row_vector @ vector) / (norm * (float(np.linalg.norm(row_vector)) or 1.0))
            pool.add(row["id"], cosine_weight * cosine, "date", row)


def favour_dated(pool: Pool, span: DaySpan, weight: float) -> None:
    """Passages of the days the question names go before the others, in their own order (each
    gains `weight` times the best score): a date in a question is as strong a cue as its words."""
    top = abs(max(pool.scores.values(), default=0.0))
    for row_id in pool.scores:
        if span.holds(pool.rows[row_id].get("timestamp") or ""):
            pool.scores[row_id] += weight * top
            pool.reasons[row_id].append("date")
