"""Org-mode pages of a Logseq graph, read as the outline they are.

Logseq keeps a page either as Markdown or as Org mode. An Org page is rewritten line for line
into the Markdown outline `mnemo.sources.logseq` reads (so line numbers stay the file's):
a heading `** text` is a block at depth 2 (`- text`, indented once); a `:PROPERTIES:` drawer
right after a heading, or before the first heading, gives `key:: value` properties of that
block or of the page; `#+TITLE:`-style keywords before the first heading are page properties;
`[[target][label]]` links are page links (`[[target]]`) or, for a URL, Markdown links. Other
drawers (`:LOGBOOK:`) are left for the outline reader to skip. Write-back never edits an Org page.
"""

import re

_HEADING = re.compile(r"^(\*+)[ \t]+(.*)$")
_KEYWORD = re.compile(r"^#\+([A-Za-z_][\w-]*):[ \t]*(.*)$")
_DRAWER_PROPERTY = re.compile(r"^\s*:([^:\s]+):[ \t]*(.*)$")
_DESCRIBED_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\[([^\[\]\n]+)\]\]")
_PROPERTIES_OPEN, _DRAWER_END = ":PROPERTIES:", ":END:"


def markdown_outline(text: str) -> str:
    """An Org page's text as a Logseq Markdown outline, one line for each of its lines."""
    out: list[str] = []
    depth, in_properties, after_heading = 0, False, True
    for line in text.splitlines():
        stripped = line.strip()
        if in_properties:
            in_properties = stripped.upper() != _DRAWER_END
            match = _DRAWER_PROPERTY.match(line)
            out.append(_property(depth, match) if in_properties and match else "")
            continue
        heading = _HEADING.match(line)
        if heading:
            depth, after_heading = len(heading.group(1)), True
            out.append("\t" * (depth - 1) + "- " + _links(heading.group(2)))
            continue
        if stripped.upper() == _PROPERTIES_OPEN and after_heading:
            in_properties = True
            out.append("")
            continue
        keyword = _KEYWORD.match(line) if depth == 0 else None
        if keyword and not keyword.group(1).upper().startswith(("BEGIN", "END")):
            out.append(f"{keyword.group(1).lower()}:: {keyword.group(2).strip()}")
            continue
        after_heading = after_heading and not stripped
        nested = depth and stripped.startswith("- ")  # a list under a heading: its children
        out.append(_links("\t" * depth + stripped if nested else line))
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _property(depth: int, match: re.Match[str]) -> str:
    return "\t" * depth + f"{match.group(1).lower()}:: {match.group(2).strip()}"


def _links(text: str) -> str:
    """`[[target][label]]` -> `[label](target)` for a URL, else `[[target]]`."""
    return _DESCRIBED_LINK.sub(
        lambda m: f"[{m.group(2)}]({m.group(1)})" if "://" in m.group(1) else f"[[{m.group(1)}]]", text
    )
