"""Where a note's frontmatter and mnemo's own properties sit in its text, read exactly as the reader does."""

import re
from dataclasses import dataclass
from typing import Any

from mnemo.errors import WritebackRefused
from mnemo.sources.markdown import split_frontmatter

BOM = "\ufeff"


_OPENING = re.compile(r"---[ \t]*\r?\n")


_CLOSING = re.compile(r"-{3,}\s*")


@dataclass(frozen=True)
class Layout:
    """Where a note's parts are: BOM, frontmatter YAML (None: no frontmatter), body."""


    bom: str
    newline: str
    yaml_start: int | None
    yaml_end: int
    body_start: int


def lines_at(text: str, start: int, end: int) -> list[tuple[int, str]]:
    """The lines of text[start:end] (split on '\\n' only, which they keep) with their offsets."""
    lines = []
    pos = start
    while pos < end:
        newline = text.find("\n", pos, end)
        stop = end if newline < 0 else newline + 1
        lines.append((pos, text[pos:stop]))
        pos = stop
    return lines


def newline_of(text: str, start: int = 0) -> str:
    """The line ending the text uses ('\\r\\n' or '\\n'), judged by its first line."""
    index = text.find("\n", start)
    return "\r\n" if index > start and text[index - 1] == "\r" else "\n"


def layout(text: str) -> Layout:
    """Locate the frontmatter exactly as the reader does; an unclosed one is refused."""
    bom = BOM if text.startswith(BOM) else ""
    head = len(bom)
    opening = _OPENING.match(text, head)
    if not opening:
        return Layout(bom, newline_of(text, head), None, head, head)
    newline = "\r\n" if opening.group().endswith("\r\n") else "\n"
    for offset, line in lines_at(text, opening.end(), len(text)):
        if _CLOSING.fullmatch(line.removesuffix("\n")):
            return Layout(bom, newline, opening.end(), offset, offset + len(line))
    raise WritebackRefused("frontmatter opens with '---' but is never closed")


def _key_pattern(key: str) -> re.Pattern[str]:
    """A top-level line that starts the `key:` block or a `key-name:` property (quoted or not)."""
    k = re.escape(key)
    name = rf"{k}(?:-[A-Za-z0-9_-]+)?"
    return re.compile(rf"(?:({name})|\"({name})\"|'({name})')[ \t]*:(?=\s|$)")


@dataclass(frozen=True)
class Span:
    """The lines of one of mnemo's keys: the old nested `key:` block or a `key-name:` property."""


    name: str
    start: int
    end: int


def _span_end(lines: list[tuple[int, str]], first: int) -> int:
    """The index of the last line of the value that starts on line `first`."""
    last = first
    for j in range(first + 1, len(lines)):
        content = lines[j][1].rstrip("\r\n")
        stripped = content.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if content[0] in " \t" or content == "-" or content.startswith("- "):
            last = j
            continue
        break
    return last


def find_spans(text: str, where: Layout, key: str) -> list[Span]:
    """mnemo's keys in the frontmatter, in order: each with its line and the value lines below it."""
    if where.yaml_start is None:
        return []
    lines = lines_at(text, where.yaml_start, where.yaml_end)
    pattern = _key_pattern(key)
    spans = []
    for i, (offset, line) in enumerate(lines):
        match = pattern.match(line)
        if match:
            last = lines[_span_end(lines, i)]
            spans.append(Span(next(g for g in match.groups() if g), offset, last[0] + len(last[1])))
    names = [s.name for s in spans]
    if len(set(names)) < len(names):
        raise WritebackRefused(f"a {key!r} property appears more than once in the frontmatter")
    return spans


def find_block(text: str, where: Layout, key: str) -> tuple[int, int] | None:
    """The (start, end) offsets of all of mnemo's lines, which must be consecutive."""
    spans = find_spans(text, where, key)
    if not spans:
        return None
    if any(a.end != b.start for a, b in zip(spans, spans[1:])):
        raise WritebackRefused(f"the note's {key}-* properties are not on consecutive lines")
    return spans[0].start, spans[-1].end


def ours(props: dict[str, Any], key: str) -> dict[str, Any]:
    """The properties mnemo owns: the old nested `key` block and every `key-name`."""
    return {k: v for k, v in props.items() if k == key or k.startswith(key + "-")}


def properties(text: str, where: Layout) -> dict[str, Any]:
    """The frontmatter as the reader sees it; a broken one is refused."""
    if where.yaml_start is None:
        return {}
    meta = split_frontmatter(text[len(where.bom):])
    if meta.problem:
        raise WritebackRefused(f"{meta.problem}; the note is left as it is")
    return meta.properties


def without_block(text: str, key: str, drop_empty: bool = True) -> str:
    """The note with mnemo's lines taken out (and, with `drop_empty`, a frontmatter left empty dropped).


    Change detection hashes this, so a write-back alone never looks like an edit. A note
    whose frontmatter cannot be read safely is returned unchanged.
    """
    try:
        where = layout(text)
        spans = find_spans(text, where, key)
    except WritebackRefused:
        return text
    if where.yaml_start is None:
        return text
    kept = text
    for span in reversed(spans):
        kept = kept[:span.start] + kept[span.end:]
    removed = sum(span.end - span.start for span in spans)
    if drop_empty and kept[where.yaml_start:where.yaml_end - removed] == "":
        return where.bom + text[where.body_start:]
    return kept
