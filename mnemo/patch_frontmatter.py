"""Surgical patching of one key of a note's YAML frontmatter.

The note is never round-tripped through a YAML dumper. The lines of the one key (`mnemo:`
by default) are found in the text and replaced; a note that lacks the key gets a block
just before the closing `---`; a note with no frontmatter gets a new block in front of
its body. Every other character stays where it was, and each patch is verified by
re-parsing both versions the way the reader (`split_frontmatter`) does.
"""

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

Value = str | float | list[str]


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
    k = re.escape(key)
    return re.compile(rf"(?:{k}|\"{k}\"|'{k}')[ \t]*:(?=\s|$)")


def find_block(text: str, where: Layout, key: str) -> tuple[int, int] | None:
    """The (start, end) offsets of the key's lines: its line and the value lines below it."""
    if where.yaml_start is None:
        return None
    lines = lines_at(text, where.yaml_start, where.yaml_end)
    pattern = _key_pattern(key)
    starts = [i for i, (_, line) in enumerate(lines) if pattern.match(line)]
    if not starts:
        return None
    if len(starts) > 1:
        raise WritebackRefused(f"the {key!r} key appears {len(starts)} times in the frontmatter")
    first = last = starts[0]
    for j in range(first + 1, len(lines)):
        content = lines[j][1].rstrip("\r\n")
        stripped = content.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if content[0] in " \t" or content == "-" or content.startswith("- "):
            last = j
            continue
        break
    return lines[first][0], lines[last][0] + len(lines[last][1])


def quote(text: str) -> str:
    """A YAML double-quoted scalar that any YAML reader reads back as exactly `text`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _UNSAFE.sub(lambda m: _escape(m.group()), escaped) + '"'


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def render_block(key: str, value: dict[str, Value], newline: str) -> str:
    """The key's lines: lists one item per line, strings double-quoted, numbers plain."""
    lines = [f"{key}:"]
    for name, item in value.items():
        if isinstance(item, list):
            lines.append(f"  {name}:")
            lines.extend(f"    - {quote(v)}" for v in item)
        elif isinstance(item, float) and math.isfinite(item):
            lines.append(f"  {name}: {item!r}")
        else:
            lines.append(f"  {name}: {quote(str(item))}")
    return newline.join(lines) + newline


def properties(text: str, where: Layout) -> dict[str, Any]:
    """The frontmatter as the reader sees it; a broken one is refused."""
    if where.yaml_start is None:
        return {}
    meta = split_frontmatter(text[len(where.bom):])
    if meta.problem:
        raise WritebackRefused(f"{meta.problem}; the note is left as it is")
    return meta.properties


def same_insight(current: Any, value: dict[str, Value], ignore: str = "consolidated") -> bool:
    """True when the written value already says the same, apart from its date."""
    if not isinstance(current, dict):
        return False
    return {k: v for k, v in current.items() if k != ignore} == {k: v for k, v in value.items() if k != ignore}


def frontmatter_patch(text: str, key: str, value: dict[str, Value]) -> Patch | None:
    """The patch that writes `value` under `key`, or None when the note already says it."""
    where = layout(text)
    block = render_block(key, value, where.newline)
    props: dict[str, Any] = {}
    if where.yaml_start is None:
        patch = Patch(len(where.bom), "", f"---{where.newline}{block}---{where.newline}")
    else:
        props = properties(text, where)
        span = find_block(text, where, key)
        if (span is None) == (key in props):
            raise WritebackRefused(f"the {key!r} key is written in a form that cannot be patched safely")
        if span is None:
            patch = Patch(where.yaml_end, "", block)
        else:
            if props[key] is False:
                raise OptedOut(f"the note opts out ({key}: false)")
            if same_insight(props[key], value):
                return None
            patch = Patch(span[0], text[span[0]:span[1]], block)
    verify(text, patch, key, value, props)
    return patch


def verify(text: str, patch: Patch, key: str, value: dict[str, Value], old_props: dict[str, Any]) -> None:
    """Re-parse the patched note: same body, same other keys in the same order, our block found."""
    new_text = patch.apply(text)
    old_where, new_where = layout(text), layout(new_text)
    if new_text[new_where.body_start:] != text[old_where.body_start:] or new_where.bom != old_where.bom:
        raise WritebackRefused("the patch would change the note's body")
    expected = dict(old_props)
    expected[key] = {k: v for k, v in value.items()}
    if list(properties(new_text, new_where).items()) != list(expected.items()):
        raise WritebackRefused("re-parsing the patched frontmatter does not give back every other key unchanged")
    span = find_block(new_text, new_where, key)
    block = render_block(key, value, new_where.newline)
    if span is None or new_text[span[0]:span[1]] != block:
        raise WritebackRefused("the written block cannot be found again in the patched note")


def current_block(text: str, key: str) -> str | None:
    """The key's lines as they are in the note, or None."""
    where = layout(text)
    span = find_block(text, where, key)
    return text[span[0]:span[1]] if span else None


def without_block(text: str, key: str) -> str:
    """The note with the key's lines taken out (and a frontmatter left empty dropped).

    Change detection hashes this, so a write-back alone never looks like an edit. A note
    whose frontmatter cannot be read safely is returned unchanged.
    """
    try:
        where = layout(text)
        span = find_block(text, where, key)
    except WritebackRefused:
        return text
    if where.yaml_start is None:
        return text
    start, end = span or (where.yaml_end, where.yaml_end)
    if text[where.yaml_start:start] + text[end:where.yaml_end] == "":
        return where.bom + text[where.body_start:]
    return text[:start] + text[end:]
