"""What a note is called where mnemo shows its name.

Most vaults name a file by its title, and the file name is what the note is called. Some name
every file by an identifier — a long number or timestamp and a separator
(`1716491727-grupo-fundamental.md`, `202405141230 idea.md`), or the note's own `id` property —
and keep the human title in the front matter (`title:` or the first of `aliases:`). For those,
the name the note gives itself is what recall titles its passages by (`metadata.name`) and what
sleep mode names communities, summaries and themes by. The file name stays the note's identity
and what its passages are embedded under: links by file name or by alias resolve as before, and
document, passage and entity ids do not change. Property values are read as strings by
`as_strings`, which the Markdown readers share.
"""

import re
from collections.abc import Mapping
from typing import Any

_ID_STEM = re.compile(r"^\d{8,}[-_ .]")  # a timestamp or long number, then a separator
_NAME_KEYS = ("title", "aliases", "alias")


def as_strings(value: Any) -> list[str]:
    """A property value as a list of non-empty strings (`a, b` / [a, b] / a)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in as_strings(v)]
    if isinstance(value, dict):
        return []
    text = str(value).strip()
    return [text] if text else []


def _names(value: Any) -> list[str]:
    """A property value as names, a `[[link]]` read as its text."""
    return [n for s in as_strings(value) if (n := s.removeprefix("[[").removesuffix("]]").strip())]


def names_by_identifier(stem: str, properties: Mapping[str, Any]) -> bool:
    """Whether a file name is an identifier rather than a title (see the module's docstring)."""
    return bool(_ID_STEM.match(stem)) or stem in _names(properties.get("id"))


def own_name(stem: str, properties: Mapping[str, Any]) -> str | None:
    """The name a note whose file name is an identifier gives itself (its `title`, else its first
    alias); None when the file name is the note's name."""
    if not names_by_identifier(stem, properties):
        return None
    for key in _NAME_KEYS:
        for name in _names(properties.get(key)):
            if name != stem:
                return name
    return None


def shown_name(stem: str, properties: Mapping[str, Any]) -> str:
    """What the note is called: the name it gives itself, else its file name."""
    return own_name(stem, properties) or stem
