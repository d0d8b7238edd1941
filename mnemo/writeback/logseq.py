"""Page properties of Logseq pages, patched surgically.

Logseq keeps a page's properties as `key:: value` lines at the very top of the file. mnemo
writes its insights there as `mnemo-<name>:: value` lines kept together: they replace the
previous mnemo lines, or follow the page's own properties, or go at the very top of a page
that has none (nothing else is added: no blank line). Every other character stays as it was.
A page that starts with YAML frontmatter is patched there instead (see patch_frontmatter).
"""

import re
from dataclasses import dataclass
from urllib.parse import unquote

from mnemo.errors import WritebackRefused
from mnemo.writeback.frontmatter import BOM, OptedOut, Patch, lines_at, newline_of

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


def one_line(value: str) -> str:
    """A property value on one line: every run of whitespace (line breaks too) becomes a space."""
    return " ".join(value.split())


def render_lines(prefix: str, values: dict[str, str], newline: str) -> list[str]:
    return [f"{prefix}-{name}:: {one_line(value)}".rstrip() + newline for name, value in values.items()]


def _ours(props: list[PropertyLine], prefix: str) -> list[int]:
    indexes = [i for i, p in enumerate(props) if p.key.startswith(prefix + "-")]
    if indexes and indexes != list(range(indexes[0], indexes[-1] + 1)):
        raise WritebackRefused(f"the page's {prefix}-* properties are not on consecutive lines")
    return indexes


def _blank_after(text: str, end: int) -> int:
    """The length of the blank line at `end` (0: none)."""
    return next((len(nl) for nl in ("\r\n", "\n") if text.startswith(nl, end)), 0)


def logseq_patch(
    text: str, prefix: str, values: dict[str, str], ignore: str = "updated", drop_blank: bool = False,
) -> Patch | None:
    """The patch that writes `values` as `<prefix>-<name>::` page properties, or None.

    `drop_blank`: mnemo's lines are the page's only properties and an earlier write-back put a blank
    line after them; that line goes too.
    """
    props = property_lines(text)
    if any(p.key == prefix and p.value.lower() == "false" for p in props):
        raise OptedOut(f"the page opts out ({prefix}:: false)")
    newline = newline_of(text)
    lines = render_lines(prefix, values, newline)
    ours = _ours(props, prefix)
    if ours:
        first, last = props[ours[0]], props[ours[-1]]
        end = last.offset + len(last.line)
        blank = _blank_after(text, end) if drop_blank and len(ours) == len(props) else 0
        current = {props[i].key: props[i].value for i in ours}
        wanted = {f"{prefix}-{k}": one_line(v) for k, v in values.items()}
        skip = f"{prefix}-{ignore}"
        same = {k: v for k, v in current.items() if k != skip} == {k: v for k, v in wanted.items() if k != skip}
        if same and not blank:
            return None
        old = text[first.offset:end + blank]
        patch = Patch(first.offset, old, _joined(lines, old.endswith("\n")))
    elif props:
        last = props[-1]
        end = last.offset + len(last.line)
        block = "".join(lines)
        patch = Patch(end, "", block if last.line.endswith("\n") else newline + block.removesuffix(newline))
    else:
        patch = Patch(len(BOM) if text.startswith(BOM) else 0, "", "".join(lines))
    verify(text, patch, prefix, values)
    return patch


def _joined(lines: list[str], trailing_newline: bool) -> str:
    block = "".join(lines)
    return block if trailing_newline else block.rstrip("\r\n")


def verify(text: str, patch: Patch, prefix: str, values: dict[str, str]) -> None:
    """Re-read the patched page: the other properties unchanged, ours exactly as intended."""
    new_text = patch.apply(text)
    before = [(p.key, p.line.rstrip("\r\n")) for p in property_lines(text) if not p.key.startswith(prefix + "-")]
    props = property_lines(new_text)
    after = [(p.key, p.line.rstrip("\r\n")) for p in props if not p.key.startswith(prefix + "-")]
    if before != after:
        raise WritebackRefused("re-reading the patched page does not give back its other properties unchanged")
    ours = {props[i].key: props[i].value for i in _ours(props, prefix)}
    if ours != {f"{prefix}-{k}": one_line(v) for k, v in values.items()}:
        raise WritebackRefused("the written properties cannot be read back from the patched page")


def without_properties(text: str, prefix: str, drop_blank: bool = False) -> str:
    """The page with its `<prefix>-*::` lines taken out (for change detection, and forget). With
    `drop_blank`, a blank line after them goes too when they are the page's only properties."""
    props = property_lines(text)
    try:
        ours = _ours(props, prefix)
    except WritebackRefused:
        return text
    if not ours:
        return text
    start, last = props[ours[0]].offset, props[ours[-1]]
    end = last.offset + len(last.line)
    if drop_blank and len(ours) == len(props):
        end += _blank_after(text, end)
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
        return f"{_MONTHS[month - 1]} {day}{_ordinal(day)}, {year}"
    return unquote(stem.replace("___", "/"))


def _ordinal(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
