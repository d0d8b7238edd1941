"""Dates written in text, resolved to calendar days relative to the document's own date.

Recognized, when unambiguous: ISO dates (`2026-04-03`), day-month and month-day with or
without a year (`3 April`, `April 3rd, 2026`; a missing year is the document's year), and
`today` / `yesterday` / `tomorrow` in text written on its date (journal pages and chat
turns: in a clipping or an essay, "today" usually means "nowadays"). Numeric forms like `03/04` are skipped on purpose:
they mean different days in different countries. Without a document date only dates
that carry their own year are resolved.
"""

import datetime as dt
import re
from dataclasses import dataclass

_MONTHS = {
    name: number
    for number, names in enumerate(
        [("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"), ("May",),
         ("June", "Jun"), ("July", "Jul"), ("August", "Aug"), ("September", "Sep", "Sept"),
         ("October", "Oct"), ("November", "Nov"), ("December", "Dec")],
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + ")"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
_ISO = re.compile(r"(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?![\w-]|:\d)")
_DAY_MONTH = re.compile(rf"(?<![\w-]){_DAY}\s+(?:of\s+)?{_MONTH}{_YEAR}(?![\w-])")
_MONTH_DAY = re.compile(rf"(?<![\w-]){_MONTH}\.?\s+{_DAY}{_YEAR}(?![\w-])")
_RELATIVE = re.compile(r"(?<![\w-])(today|yesterday|tomorrow)(?![\w-])", re.IGNORECASE)
_OFFSETS = {"today": 0, "yesterday": -1, "tomorrow": 1}


@dataclass(frozen=True)
class DateMention:
    start: int
    end: int
    day: str
    method: str  # "date:iso" | "date:absolute" | "date:relative"


def anchor_day(*candidates: str | None) -> dt.date | None:
    """The first candidate that starts with an ISO date, as a date."""
    for value in candidates:
        if value and re.match(r"^\d{4}-\d{2}-\d{2}", value):
            try:
                return dt.date.fromisoformat(value[:10])
            except ValueError:
                continue
    return None


def _day(year: int, month: int, day: int) -> str | None:
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _named(match: re.Match[str], day_group: int, month_group: int, anchor: dt.date | None) -> str | None:
    year_text = match.group(3)
    if year_text is None and anchor is None:
        return None
    year = int(year_text) if year_text else anchor.year  # type: ignore[union-attr]
    return _day(year, _MONTHS[match.group(month_group)], int(match.group(day_group)))


def find_dates(text: str, anchor: dt.date | None, relative: bool = True) -> list[DateMention]:
    """Day mentions in text, leftmost-longest and non-overlapping.

    `anchor` is the day the text was written (it supplies missing years); `relative` says
    whether today/yesterday/tomorrow may be resolved against it.
    """
    found: list[DateMention] = []
    for match in _ISO.finditer(text):
        day = _day(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        if day:
            found.append(DateMention(match.start(), match.end(), day, "date:iso"))
    for pattern, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for match in pattern.finditer(text):
            day = _named(match, day_group, month_group, anchor)
            if day:
                found.append(DateMention(match.start(), match.end(), day, "date:absolute"))
    if anchor is not None and relative:
        for match in _RELATIVE.finditer(text):
            day = (anchor + dt.timedelta(days=_OFFSETS[match.group(1).lower()])).isoformat()
            found.append(DateMention(match.start(), match.end(), day, "date:relative"))
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    chosen: list[DateMention] = []
    for mention in found:
        if not chosen or mention.start >= chosen[-1].end:
            chosen.append(mention)
    return chosen
