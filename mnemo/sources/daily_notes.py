"""Obsidian's daily notes, named the vault's own way.

The Daily notes plugin keeps its settings in `.obsidian/daily-notes.json`: `format`, a moment.js
pattern (default `YYYY-MM-DD`; it may hold `/` for sub-folders, e.g. `YYYY/MM/YYYY-MM-DD`), and
`folder` (default: the vault's root). A note at `<folder>/<a day in that format>.md` is that day's
journal page. Days are written and read back with the same tokens.
"""

import datetime as dt
import json
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_FORMAT = "YYYY-MM-DD"
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TOKEN = re.compile(r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd")
_PATTERNS = {
    "YYYY": r"(?P<year>\d{4})", "YY": r"(?P<yy>\d{2})", "MMMM": f"(?P<month_name>{'|'.join(_MONTHS)})",
    "MMM": f"(?P<month_abbr>{'|'.join(m[:3] for m in _MONTHS)})", "MM": r"(?P<month>\d{2})",
    "M": r"(?P<month>\d{1,2})", "Do": r"(?P<day>\d{1,2})(?:st|nd|rd|th)", "DD": r"(?P<day>\d{2})",
    "D": r"(?P<day>\d{1,2})", "dddd": f"(?:{'|'.join(_WEEKDAYS)})", "ddd": f"(?:{'|'.join(w[:3] for w in _WEEKDAYS)})",
}


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def _token(day: dt.date, token: str) -> str:
    if token.startswith("["):
        return token[1:-1]
    month, weekday = _MONTHS[day.month - 1], _WEEKDAYS[day.weekday()]
    return {
        "YYYY": f"{day.year:04d}", "YY": f"{day.year % 100:02d}", "MMMM": month, "MMM": month[:3],
        "MM": f"{day.month:02d}", "M": str(day.month), "Do": _ordinal(day.day), "DD": f"{day.day:02d}",
        "D": str(day.day), "dddd": weekday, "ddd": weekday[:3],
    }[token]


def format_day(day: dt.date, fmt: str) -> str:
    """A day written with a moment.js pattern: `dddd, MMMM Do YYYY` -> `Tuesday, March 8th 2022`."""
    return _TOKEN.sub(lambda m: _token(day, m.group()), fmt)


def _pattern(fmt: str) -> re.Pattern[str] | None:
    parts, seen, at = [], set(), 0
    for match in _TOKEN.finditer(fmt):
        parts.append(re.escape(fmt[at:match.start()]))
        token = match.group()
        regex = re.escape(token[1:-1]) if token.startswith("[") else _PATTERNS[token]
        group = re.search(r"\?P<(\w+)>", regex)
        if group and group.group(1) in seen:  # a field written twice (YYYY/YYYY-MM-DD): match it again
            regex = f"(?P={group.group(1)})"
        elif group:
            seen.add(group.group(1))
        parts.append(regex)
        at = match.end()
    parts.append(re.escape(fmt[at:]))
    return re.compile("".join(parts) + r"\Z") if {"day"} <= seen and seen & {"year", "yy"} else None


@dataclass(frozen=True)
class DailyNotes:
    """The vault's daily notes settings."""

    format: str = DEFAULT_FORMAT
    folder: str = ""

    def path(self, day: dt.date) -> str:
        name = format_day(day, self.format)
        return f"{self.folder}/{name}.md" if self.folder else f"{name}.md"

    def day_of(self, rel: str) -> str | None:
        """The ISO day of a daily note at `rel` (relative to the vault), or None."""
        prefix = self.folder + "/" if self.folder else ""
        if not rel.startswith(prefix) or not rel.lower().endswith(".md"):
            return None
        pattern = _pattern(self.format)
        found = pattern.match(rel[len(prefix):-3]) if pattern else None
        return _date(found.groupdict()) if found else None


def _date(fields: dict[str, str | None]) -> str | None:
    full_year = fields.get("year")
    year = int(full_year) if full_year else 2000 + int(fields["yy"] or 0)
    if fields.get("month"):
        month = int(fields["month"] or 0)
    else:
        name = fields.get("month_name") or fields.get("month_abbr") or ""
        month = next((i + 1 for i, m in enumerate(_MONTHS) if m.startswith(name)), 0) if name else 0
    try:
        return dt.date(year, month, int(fields["day"] or 0)).isoformat()
    except ValueError:
        return None


def daily_notes(root: Path) -> DailyNotes:
    """The vault's settings from `.obsidian/daily-notes.json` (the defaults when it is absent or unreadable)."""
    try:
        settings = json.loads((root / ".obsidian" / "daily-notes.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return DailyNotes()
    if not isinstance(settings, dict):
        return DailyNotes()
    fmt = settings.get("format")
    folder = settings.get("folder")
    return DailyNotes(
        fmt.strip() if isinstance(fmt, str) and fmt.strip() else DEFAULT_FORMAT,
        folder.strip().strip("/") if isinstance(folder, str) else "",
    )
