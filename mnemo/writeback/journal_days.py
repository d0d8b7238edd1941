"""Day pages in the vault's own format: which note is the journal page of a day, and its name.

Logseq names a journal page by `:journal/page-title-format` in `logseq/config.edn` (default
`MMM do, yyyy`, e.g. `Mar 22nd, 2022`; `E, yyyy/MM/dd` gives `Tue, 2022/03/08`) and finds it
by its file name (`:journal/file-name-format`, read by the Logseq source). A link to a day is
written only when that day's journal page exists.
"""

import datetime as dt
import re
from pathlib import Path

from mnemo.sources.logseq import GraphSettings, journal_day

DEFAULT_TITLE_FORMAT = "MMM do, yyyy"
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_TOKEN = re.compile(r"yyyy|MMMM|MMM|MM|M|do|dd|d|EEEE|EEE|E|'[^']*'")


def _day_ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return f"{day}th"
    return f"{day}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(day % 10, 'th') }"


def _token(day: dt.date, token: str) -> str:
    month, weekday = _MONTHS[day.month - 1], _WEEKDAYS[day.weekday()]
    values = {
        "yyyy": f"{day.year:04d}", "MMMM": month, "MMM": month[:3],
        "MM": f"{day.month:02d}", "M": str(day.month), "do": _day_ordinal(day.day), "dd": f"{day.day:02d}",
        "d": str(day.day), "EEEE": weekday, "EEE": weekday[:3], "E": weekday[:3],
    }
    return values.get(token, token.strip("'"))


def format_day(day: dt.date, fmt: str) -> str:
    """A day written with a Logseq (date-fns) pattern: `E, yyyy/MM/dd` -> `Tue, 2022/03/08`."""
    return _TOKEN.sub(lambda m: _token(day, m.group()), fmt)


def logseq_title_format(root: Path) -> str:
    """The graph's `:journal/page-title-format` (the default when config.edn does not set it)."""
    try:
        text = (root / "logseq" / "config.edn").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return DEFAULT_TITLE_FORMAT
    lines = (line.split(";", 1)[0] if not line.lstrip().startswith('"') else line for line in text.splitlines())
    found = re.search(r':journal/page-title-format\s+"([^"]+)"', "\n".join(lines))
    return found.group(1) if found else DEFAULT_TITLE_FORMAT


class LogseqDays:
    """The graph's journal pages by day, named the way the graph names them."""

    def __init__(self, root: Path, settings: GraphSettings, files: list[str]) -> None:
        self.title_format = logseq_title_format(root)
        self.settings = settings
        self.pages: dict[str, str] = {}
        for rel in files:
            day = journal_day(rel, settings)
            if day:
                self.pages.setdefault(day, rel)

    def title(self, rel: str) -> str | None:
        """The page name of a journal file (None: not a journal page)."""
        day = journal_day(rel, self.settings)
        return format_day(dt.date.fromisoformat(day), self.title_format) if day else None

    def link(self, day: str) -> str | None:
        """`[[<day's page name>]]` when the day's journal page exists, else None."""
        return f"[[{format_day(dt.date.fromisoformat(day), self.title_format)}]]" if day in self.pages else None
