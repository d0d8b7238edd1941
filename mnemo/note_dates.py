"""When a note was written, from what its owner wrote, never from the file's time.

A note's date is, first found: its journal day; a date property (`created`, `created-at`,
`date`, ...: an ISO date, a date value or a Unix time); a date in its title (`2023-06-14
Meeting`, a zettel id `202306141230`, a Unix-time id `1706782930-grafo`); a date in its folders
(`2023/06/14/`, `2023/06/`). `date_source` says which (`journal`, `frontmatter:<key>`, `title`,
`path`, `source` for a date the source itself gave, e.g. a chat's; `none`). A note with none of
them has no date. Inside an undated-by-journal note, a passage under a dated heading or one that
starts with a dated list item (a changelog's `## 1.4.0 (2024-03-02)`, `- 2025-03-14: ...`) is
dated by it (`passage_day`). `mnemo.documents.dated` applies the order to a document.
"""

import datetime as dt
import re
from typing import Any

# property keys that date a note, compared without case, with `_` / `-` read as spaces
DATE_KEYS = ("created", "created at", "createdat", "date created", "datecreated", "creation date", "date", "clipped",
             "creado", "fecha", "criado", "criado em", "data", "erstellt", "datum", "cree le", "creato")
UNDATED = "none"
_EARLIEST_ID = dt.date(2001, 1, 1)  # a numeric id names a time from here to today
_ISO = re.compile(r"(?<!\d)((?:19|20)\d\d)[-_./](\d\d)[-_./](\d\d)(?!\d)")
_ZETTEL = re.compile(r"^((?:19|20)\d\d)(\d\d)(\d\d)(?:\d\d\d\d(?:\d\d)?)?(?!\d)")
_UNIX_ID = re.compile(r"^(1\d{9})(?!\d)")
_FOLDER = re.compile(r"(?:^|/)((?:19|20)\d\d)/(\d\d)(?:/(\d\d))?(?=/)")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_WORDY = (
    re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+((?:19|20)\d\d)\b", re.I),
    re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+((?:19|20)\d\d)\b", re.I),
)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_ITEM_START = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\[[ xX]\]\s*)?[*_]*\[*")  # a list mark, a task box, emphasis


def property_date(properties: dict[str, Any]) -> tuple[str, str | None]:
    by_key = {re.sub(r"[\s_-]+", " ", str(k).strip().lower()): (k, v) for k, v in properties.items()}
    for key in DATE_KEYS:
        if key in by_key:
            name, value = by_key[key]
            found = value_day(value)
            if found:
                return str(name), found
    return "", None


def value_day(value: Any) -> str | None:
    """A property value as an ISO date or time: a date, an ISO string, or Unix seconds or milliseconds."""
    if isinstance(value, list) and value:
        return value_day(value[0])
    if isinstance(value, dt.datetime):
        return value.isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, (int, float)) and not isinstance(value, bool) or isinstance(value, str) and value.isdigit():
        return _unix_day(int(value), dt.date.today(), keep_time=True)
    if isinstance(value, str):
        text = value.strip().strip("[]")
        match = _ISO.match(text)
        if match and _valid(*match.groups()):
            time = re.match(r"\d{4}-\d\d-\d\d[T ](\d\d:\d\d(?::\d\d)?)", text)
            return _iso(*match.groups()) + (f"T{time.group(1)}" if time else "")
        return wordy_day(text)
    return None


def name_day(name: str, today: dt.date) -> str | None:
    """A date in a note's name: ISO anywhere, or a zettel or Unix-time id at its start (plausible ids only)."""
    match = _ISO.search(name)
    if match and _valid(*match.groups()):
        return _iso(*match.groups())
    match = _ZETTEL.match(name)
    if match and _valid(*match.groups()) and _EARLIEST_ID <= dt.date.fromisoformat(_iso(*match.groups())) <= today:
        return _iso(*match.groups())
    match = _UNIX_ID.match(name)
    return _unix_day(int(match.group(1)), today) if match else None


def folder_day(folder: str) -> str | None:
    """The day (or the first of the month) that dated folders name: `2023/06/14/`, `2023/06/`."""
    match = _FOLDER.search(folder + "/")
    if not match:
        return None
    year, month, day = match.group(1), match.group(2), match.group(3) or "01"
    return _iso(year, month, day) if _valid(year, month, day) else None


def passage_day(heading: str, text: str) -> str | None:
    """The date of a dated item: the innermost heading that names a date, else the date that
    starts the passage's first line (`- 2025-03-14: ...`, `[[Dec 1st, 2025]] ...`)."""
    for part in reversed(heading.split(" > ")):
        found = _ISO.search(part)
        if found and _valid(*found.groups()):
            return _iso(*found.groups())
        if wordy := wordy_day(part):
            return wordy
    first = text.lstrip().split("\n", 1)[0] if text.strip() else ""
    start = _ITEM_START.sub("", first, count=1).lstrip("#").strip()
    match = _ISO.match(start)
    if match and _valid(*match.groups()):
        return _iso(*match.groups())
    return wordy_day(start[:24]) if re.match(_MONTH + r"\s+\d|\d{1,2}(?:st|nd|rd|th)?\s", start, re.I) else None


def wordy_day(text: str) -> str | None:
    """An English date written out (`Dec 1st, 2025`, `14 March 2024`) as ISO, if the text has one."""
    for n, pattern in enumerate(_WORDY):
        match = pattern.search(text)
        if match:
            month, day, year = (match.group(1), match.group(2), match.group(3)) if n == 0 else \
                (match.group(2), match.group(1), match.group(3))
            number = f"{_MONTHS.index(month[:3].lower()) + 1:02d}"
            if _valid(year, number, day):
                return _iso(year, number, day)
    return None


def _unix_day(seconds: int, today: dt.date, keep_time: bool = False) -> str | None:
    if seconds > 10**11:  # milliseconds
        seconds //= 1000
    try:
        moment = dt.datetime.fromtimestamp(seconds, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    if not _EARLIEST_ID <= moment.date() <= today:
        return None
    return moment.isoformat(timespec="seconds") if keep_time else moment.date().isoformat()


def _valid(year: str, month: str, day: str) -> bool:
    try:
        dt.date(int(year), int(month), int(day))
    except ValueError:
        return False
    return True


def _iso(year: str, month: str, day: str) -> str:
    return f"{int(year):04d}-{int(month):02d}-{int(day):02d}"
