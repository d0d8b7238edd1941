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
from mnemo.sources.note_layout import find_block, find_spans, layout, ours, properties

_UNSAFE = re.compile("[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")

Value = str | int | float | dt.date | list[str]


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


def quote(text: str) -> str:
    """A YAML double-quoted scalar that any YAML reader reads back as exactly `text`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _UNSAFE.sub(lambda m: _escape(m.group()), escaped) + '"'


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _scalar(item: str | int | float | dt.date) -> str:
    if isinstance(item, dt.date):
        return item.isoformat()
    if isinstance(item, int) and not isinstance(item, bool):
        return str(item)
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


