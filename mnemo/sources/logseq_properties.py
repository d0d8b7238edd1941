"""Logseq page properties: the leading `key:: value` lines of a page, and a page's name."""

import re
from dataclasses import dataclass

from mnemo.errors import WritebackRefused
from mnemo.sources.logseq import page_name as file_page_name
from mnemo.sources.note_layout import BOM, lines_at

_PROPERTY = re.compile(r"([^\s:]+)::(?:[ \t](.*))?$")


_JOURNAL = re.compile(r"^(\d{4})_(\d{2})_(\d{2})$")


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True)
class PropertyLine:
    offset: int
    line: str
    key: str
    value: str


def property_lines(text: str) -> list[PropertyLine]:
    """The page's leading `key:: value` lines (its page properties)."""
    head = len(BOM) if text.startswith(BOM) else 0
    found = []
    for offset, line in lines_at(text, head, len(text)):
        match = _PROPERTY.match(line.rstrip("\r\n"))
        if not match:
            break
        found.append(PropertyLine(offset, line, match.group(1).lower(), (match.group(2) or "").strip()))
    return found


def page_properties(text: str) -> dict[str, str]:
    """Page properties by lower-case key (the first occurrence wins)."""
    props: dict[str, str] = {}
    for prop in property_lines(text):
        props.setdefault(prop.key, prop.value)
    return props


def prefixed_indexes(props: list[PropertyLine], prefix: str) -> list[int]:
    indexes = [i for i, p in enumerate(props) if p.key.startswith(prefix + "-")]
    if indexes and indexes != list(range(indexes[0], indexes[-1] + 1)):
        raise WritebackRefused(f"the page's {prefix}-* properties are not on consecutive lines")
    return indexes


def blank_after(text: str, end: int) -> int:
    """The length of the blank line at `end` (0: none)."""
    return next((len(nl) for nl in ("\r\n", "\n") if text.startswith(nl, end)), 0)


def without_properties(text: str, prefix: str, drop_blank: bool = False) -> str:
    """The page with its `<prefix>-*::` lines taken out (for change detection, and forget). With
    `drop_blank`, a blank line after them goes too when they are the page's only properties."""
    props = property_lines(text)
    try:
        ours = prefixed_indexes(props, prefix)
    except WritebackRefused:
        return text
    if not ours:
        return text
    start, last = props[ours[0]].offset, props[ours[-1]]
    end = last.offset + len(last.line)
    if drop_blank and len(ours) == len(props):
        end += blank_after(text, end)
    if end == len(text) and not text.endswith("\n"):
        start -= next((len(nl) for nl in ("\r\n", "\n") if text.endswith(nl, 0, start)), 0)
    return text[:start] + text[end:]


def page_name(stem: str, title: str | None = None) -> str:
    """How Logseq names a page file: its `title::`, a journal date, or the decoded file name."""
    if title and title.strip():
        return title.strip()
    journal = _JOURNAL.match(stem)
    if journal:
        year, month, day = (int(g) for g in journal.groups())
        return f"{_MONTHS[month - 1]} {day}{ordinal_suffix(day)}, {year}"
    return file_page_name(stem)


def ordinal_suffix(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
