"""Obsidian Excalidraw drawings (`*.excalidraw.md`): only the words a person wrote in them.

The plugin keeps a drawing's text elements under a `Text Elements` heading (each line ending
in a `^blockid`), then `Element Links` / `Embedded Files`, then the drawing itself as JSON
(or compressed JSON) under `Drawing`, inside `%%` comments. Coordinates and `versionNonce`s
are not memory: the text elements are the note's body.
"""

import re

_SECTION = re.compile(r"^#{1,6}\s+(.+?)\s*$")
_BLOCK_ID = re.compile(r"\s*\^[A-Za-z0-9-]+\s*$")
_TEXT = "text elements"


def is_drawing(rel_path: str, properties: dict[str, object]) -> bool:
    return rel_path.lower().endswith(".excalidraw.md") or "excalidraw-plugin" in properties


def drawing_text(body: str) -> str:
    """The text elements of a drawing's Markdown, without their block ids."""
    kept: list[str] = []
    inside = False
    for line in body.splitlines():
        heading = _SECTION.match(line)
        if heading:
            inside = heading.group(1).strip().lower() == _TEXT
            continue
        if line.strip() == "%%":
            inside = False
        if inside:
            kept.append(_BLOCK_ID.sub("", line))
    return "\n".join(kept).strip()
