"""Obsidian daily notes: which note is the page of a day, from the vault's own settings.

Obsidian's Daily notes plugin keeps its settings in `.obsidian/daily-notes.json`: `format`, a
moment.js pattern (default `YYYY-MM-DD`), and `folder` (default: the vault's root). A day's page
is `<folder>/<day in that format>.md`; a link to it is written only when that note exists.
"""

import datetime as dt
import json
import re
from pathlib import Path

DEFAULT_FORMAT = "YYYY-MM-DD"
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TOKEN = re.compile(r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|GGGG|WW|W")


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def _token(day: dt.date, token: str) -> str:
    if token.startswith("["):
        return token[1:-1]
    month, weekday = _MONTHS[day.month - 1], _WEEKDAYS[day.weekday()]
    week = day.isocalendar()
    return {
        "YYYY": f"{day.year:04d}", "YY": f"{day.year % 100:02d}", "MMMM": month, "MMM": month[:3],
        "MM": f"{day.month:02d}", "M": str(day.month), "Do": _ordinal(day.day), "DD": f"{day.day:02d}",
        "D": str(day.day), "dddd": weekday, "ddd": weekday[:3], "GGGG": f"{week.year:04d}",
        "WW": f"{week.week:02d}", "W": str(week.week),
    }[token]


def format_day(day: dt.date, fmt: str) -> str:
    """A day written with a moment.js pattern: `dddd, MMMM Do YYYY` -> `Tuesday, March 8th 2022`."""
    return _TOKEN.sub(lambda m: _token(day, m.group()), fmt)


class ObsidianDays:
    """The vault's daily notes by day, named the way its Daily notes settings name them."""

    def __init__(self, root: Path, stems: dict[str, int]) -> None:
        self.root = root
        self.stems = stems
        self.format, self.folder = DEFAULT_FORMAT, ""
        try:
            settings = json.loads((root / ".obsidian" / "daily-notes.json").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            settings = {}
        if isinstance(settings, dict):
            self.format = str(settings.get("format") or DEFAULT_FORMAT)
            self.folder = str(settings.get("folder") or "").strip("/")

    def path(self, day: str) -> str:
        name = format_day(dt.date.fromisoformat(day), self.format)
        return f"{self.folder}/{name}.md" if self.folder else f"{name}.md"

    def link(self, day: str) -> str | None:
        """`[[<daily note>]]` when the day's daily note exists, else None."""
        rel = self.path(day)
        if not (self.root / rel).is_file():
            return None
        stem = Path(rel).stem
        return f"[[{stem if self.stems.get(stem.lower(), 0) <= 1 else rel.removesuffix('.md')}]]"
