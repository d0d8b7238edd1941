"""Relative dates in a chat turn ("last Saturday", "two weeks ago", "next month", "yesterday")
resolved against the day the turn was said, as the span of days they mean.

Only phrases that name a definite offset are resolved: a count (a number, a number word, "a",
"a couple of") with a unit and "ago" / "in", or "last" / "this" / "next" with a weekday, "week",
"weekend", "month" or "year". Vague ones ("a few weeks ago", "years ago", "the other day",
"last time", "next steps") are left alone: a wrong date is worse than none. Absolute dates
written in the turn ("8 May 2023") come from `mnemo.extract.dates`.
"""

import datetime as dt
import re
from dataclasses import dataclass

from mnemo.extract.dates import find_dates

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_COUNTS = {"a": 1, "an": 1, "one": 1, "a couple of": 2, "couple of": 2, "two": 2, "three": 3, "four": 4,
           "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_COUNT = r"(\d{1,2}|" + "|".join(sorted(map(re.escape, _COUNTS), key=len, reverse=True)) + ")"
_UNIT = r"(day|week|month|year)s?"
_AGO = re.compile(rf"(?<![\w-]){_COUNT}\s+{_UNIT}\s+ago(?![\w-])", re.IGNORECASE)
_IN = re.compile(rf"(?<![\w-])in\s+{_COUNT}\s+{_UNIT}(?![\w-])", re.IGNORECASE)
_NAMED = re.compile(
    r"(?<![\w-])(last|this past|this|next)\s+(" + "|".join(WEEKDAYS) + r"|weekend|week|month|year)(?![\w-])",
    re.IGNORECASE,
)
_NIGHT = re.compile(r"(?<![\w-])(last night|this morning|tonight)(?![\w-])", re.IGNORECASE)


@dataclass(frozen=True)
class ResolvedDate:
    """A phrase of the text (its span) and the days it means, first to last inclusive."""

    start: int
    end: int
    phrase: str
    first: dt.date
    last: dt.date

    def as_metadata(self) -> dict[str, str]:
        return {"phrase": self.phrase, "from": self.first.isoformat(), "to": self.last.isoformat()}


def _month_span(year: int, month: int) -> tuple[dt.date, dt.date]:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    first = dt.date(year, month, 1)
    return first, (first + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)


def _shifted(anchor: dt.date, unit: str, count: int) -> tuple[dt.date, dt.date]:
    """The day, week (Monday to Sunday), month or year `count` units from the anchor's."""
    if unit == "day":
        day = anchor + dt.timedelta(days=count)
        return day, day
    if unit == "week":
        monday = anchor - dt.timedelta(days=anchor.weekday()) + dt.timedelta(weeks=count)
        return monday, monday + dt.timedelta(days=6)
    if unit == "month":
        return _month_span(anchor.year, anchor.month + count)
    return dt.date(anchor.year + count, 1, 1), dt.date(anchor.year + count, 12, 31)


def _weekday(anchor: dt.date, which: str, name: str) -> dt.date:
    """`last Saturday`: the latest Saturday before the anchor; `next`: the first after it;
    `this`: the one of the anchor's week."""
    target = WEEKDAYS.index(name)
    if which == "next":
        return anchor + dt.timedelta(days=(target - anchor.weekday() - 1) % 7 + 1)
    if which == "this":
        return anchor + dt.timedelta(days=target - anchor.weekday())
    return anchor - dt.timedelta(days=(anchor.weekday() - target - 1) % 7 + 1)


def _named(anchor: dt.date, which: str, what: str) -> tuple[dt.date, dt.date]:
    if what in WEEKDAYS:
        day = _weekday(anchor, which, what)
        return day, day
    step = {"last": -1, "this past": -1, "this": 0, "next": 1}[which]
    if what == "weekend":
        saturday = anchor - dt.timedelta(days=anchor.weekday()) + dt.timedelta(days=5)  # of the anchor's week
        if step < 0:
            saturday -= dt.timedelta(weeks=1)
        elif step > 0 and anchor.weekday() >= 5:
            saturday += dt.timedelta(weeks=1)
        return saturday, saturday + dt.timedelta(days=1)
    return _shifted(anchor, what, step)


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS[" ".join(word.lower().split())]


def resolve_relative(text: str, anchor: dt.date) -> list[ResolvedDate]:
    """The relative dates of a text said on `anchor`, in the order they appear."""
    found: list[ResolvedDate] = []
    for pattern, sign in ((_AGO, -1), (_IN, 1)):
        for m in pattern.finditer(text):
            first, last = _shifted(anchor, m.group(2).lower(), sign * _count(m.group(1)))
            found.append(ResolvedDate(m.start(), m.end(), m.group(0), first, last))
    for m in _NAMED.finditer(text):
        first, last = _named(anchor, " ".join(m.group(1).lower().split()), m.group(2).lower())
        found.append(ResolvedDate(m.start(), m.end(), m.group(0), first, last))
    for m in _NIGHT.finditer(text):
        day = anchor - dt.timedelta(days=1) if m.group(1).lower() == "last night" else anchor
        found.append(ResolvedDate(m.start(), m.end(), m.group(0), day, day))
    for mention in find_dates(text, anchor):
        day = dt.date.fromisoformat(mention.day)
        found.append(ResolvedDate(mention.start, mention.end, text[mention.start:mention.end], day, day))
    return sorted(found, key=lambda r: (r.start, -r.end))


def turn_dates(text: str, said: str | None) -> list[dict[str, str]]:
    """What `resolve_relative` finds in a turn said at `said` (an ISO timestamp), as metadata;
    nothing when the turn has no date to resolve against."""
    try:
        anchor = dt.date.fromisoformat(said[:10]) if said else None
    except ValueError:
        return []
    return [r.as_metadata() for r in resolve_relative(text, anchor)] if anchor else []
