"""Surgical patching of mnemo's properties in a note's YAML frontmatter.

mnemo writes top-level properties with its prefix (`mnemo-related`, `mnemo-updated`, ...), which
Obsidian's Properties view shows and whose `"[[links]]"` count in its graph and backlinks.
The note is never round-tripped through a YAML dumper: the lines of those properties (and
of an old nested `mnemo:` block, which they replace) are found in the text and replaced;
a note without them gets them just before the closing `---`; a note with no frontmatter
gets a new one in front of its body. Every other character stays where it was, and each patch is verified by
re-parsing both versions the way the reader (`split_frontmatter`) does.
"""

import datetime as dt
import math
import re
from dataclasses import dataclass
from typing import Any

from mnemo.errors import WritebackRefused
from mnemo.sources.markdown import split_frontmatter

BOM = "\ufeff"
_OPENING = re.compile(r"---[ \t]*\r?\n")
_CLOSING = re.compile(r"-{3,}\s*")
_UNSAFE = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")

Value = str | float | dt.date | list[str]


class OptedOut(WritebackRefused):
    """The note says `mnemo: false`: it is never written."""


@dataclass(frozen=True)
class Patch:
    """Replace `old` at offset `start` by `new`: the whole difference between two versions."""

    start: int
    old: str
    new: str

    def apply(self, text: str) -> str:
        if text[self.start:self.start + len(self.old)] != self.old:
            raise WritebackRefused("the note no longer holds the text this patch replaces")
        return text[:self.start] + self.new + text[self.start + len(self.old):]

    def inverse(self) -> "Patch":
        return Patch(self.start, self.new, self.old)


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


def quote(text: str) -> str:
    """A YAML double-quoted scalar that any YAML reader reads back as exactly `text`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _UNSAFE.sub(lambda m: _escape(m.group()), escaped) + '"'


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _scalar(item: str | float | dt.date) -> str:
    if isinstance(item, dt.date):
        return item.isoformat()
    if isinstance(item, float) and math.isfinite(item):
        return repr(item)
    return quote(str(item))


def render_block(key: str, value: dict[str, Value], newline: str) -> str:
    """mnemo's properties, one top-level `key-name:` each: lists one quoted item per line,
    strings double-quoted, numbers and dates plain (Obsidian shows them as number and date)."""
    lines = []
    for name, item in value.items():
        if isinstance(item, list):
            lines.append(f"{key}-{name}:")
            lines.extend(f"  - {quote(v)}" for v in item)
        else:
            lines.append(f"{key}-{name}: {_scalar(item)}")
    return newline.join(lines) + newline


def written_values(key: str, value: dict[str, Value]) -> dict[str, Any]:
    """The properties a reader gets back from the rendered block."""
    return split_frontmatter(f"---\n{render_block(key, value, chr(10))}---\n").properties


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


def same_insight(current: dict[str, Any], wanted: dict[str, Any], ignore: str) -> bool:
    """True when the written properties already say the same, apart from the date they were updated."""
    return {k: v for k, v in current.items() if k != ignore} == {k: v for k, v in wanted.items() if k != ignore}


def frontmatter_patch(text: str, key: str, value: dict[str, Value], ignore: str = "updated") -> Patch | None:
    """The patch that writes `value` as `key-*` properties, or None when the note already says it.

    An old nested `key:` block is replaced by the properties; a note that says `key: false` is never written.
    """
    where = layout(text)
    block = render_block(key, value, where.newline)
    if where.yaml_start is None:
        patch = Patch(len(where.bom), "", f"---{where.newline}{block}---{where.newline}")
        verify(text, patch, key, value, {})
        return patch
    props = properties(text, where)
    if props.get(key) is False:
        raise OptedOut(f"the note opts out ({key}: false)")
    present = ours(props, key)
    span = find_block(text, where, key)
    if len(find_spans(text, where, key)) != len(present):
        raise WritebackRefused(f"the {key!r} properties are written in a form that cannot be patched safely")
    if span is None:
        patch = Patch(where.yaml_end, "", block)
    else:
        if same_insight(present, written_values(key, value), f"{key}-{ignore}"):
            return None
        patch = Patch(span[0], text[span[0]:span[1]], block)
    verify(text, patch, key, value, props)
    return patch


def verify(text: str, patch: Patch, key: str, value: dict[str, Value], old_props: dict[str, Any]) -> None:
    """Re-parse the patched note: same body, same other keys in the same order, ours as rendered."""
    new_text = patch.apply(text)
    old_where, new_where = layout(text), layout(new_text)
    if new_text[new_where.body_start:] != text[old_where.body_start:] or new_where.bom != old_where.bom:
        raise WritebackRefused("the patch would change the note's body")
    new_props = properties(new_text, new_where)
    mine = ours(new_props, key)
    others = [(k, v) for k, v in new_props.items() if k not in mine]
    if others != [(k, v) for k, v in old_props.items() if k not in ours(old_props, key)]:
        raise WritebackRefused("re-parsing the patched frontmatter does not give back every other key unchanged")
    if list(mine.items()) != list(written_values(key, value).items()):
        raise WritebackRefused("the written properties cannot be read back from the patched note")
    span = find_block(new_text, new_where, key)
    if span is None or new_text[span[0]:span[1]] != render_block(key, value, new_where.newline):
        raise WritebackRefused("the written properties cannot be found again in the patched note")


def current_block(text: str, key: str) -> str | None:
    """mnemo's lines as they are in the note, or None."""
    where = layout(text)
    span = find_block(text, where, key)
    return text[span[0]:span[1]] if span else None


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
