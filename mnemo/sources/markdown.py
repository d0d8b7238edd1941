"""Markdown building blocks shared by the note sources: frontmatter, wikilinks, tags."""

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import frontmatter
import yaml
from markdown_it import MarkdownIt

from mnemo.documents import Link
from mnemo.note_names import as_strings

_MD = MarkdownIt("commonmark")
_MD_BLOCKS = MarkdownIt("commonmark").disable("inline")  # code blocks need only the block rules
# Code needs a fence or a line indented to column 4 (a tab after up to three spaces counts).
_MAYBE_CODE = re.compile(r"```|~~~|^ {0,3}\t|^ {4}", re.MULTILINE)
_HANDLER = frontmatter.YAMLHandler()
_OPENING = re.compile(r"\A---[ \t]*\r?\n")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+\.md)(?:#([^)\s]*))?\)")
_INLINE_CODE = re.compile(r"(`+)[^`\n]*?\1")
# Without a backtick, a tilde fence or a line indented to column 4, there is no code to blank.
_MAYBE_CODE = re.compile(r"`|~~~|^ {0,3}\t|^ {4}", re.MULTILINE)
_TAG = re.compile(r"(?<![\w/&#\[\]`(])#([^\W\d][\w/\-]*|\d+[^\W\d][\w/\-]*)", re.UNICODE)
_MAX_YAML_ALIASES = 50


@dataclass(frozen=True)
class Frontmatter:
    properties: dict[str, Any]
    body: str
    problem: str | None = None


class _NoAliasLoader(yaml.SafeLoader):
    """SafeLoader that refuses heavy alias use (YAML "billion laughs" bombs)."""

    alias_count = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: D401 - PyYAML hook
        if self.check_event(yaml.AliasEvent):
            self.alias_count += 1
            if self.alias_count > _MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {_MAX_YAML_ALIASES} YAML aliases (refused as unsafe)")
        return super().compose_node(parent, index)


def _plain(value: Any) -> Any:
    """YAML values as JSON-able data: dates become ISO strings, keys become strings."""
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def _yaml_reason(exc: yaml.YAMLError) -> str:
    """`expected ',' or ']', but got ':' at line 3` (line numbers of the file, not the block)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem} at line {mark.line + 2}" if mark is not None else str(problem)


def split_frontmatter(text: str) -> Frontmatter:
    """Separate YAML frontmatter from the body; a broken block is reported, never fatal."""
    if not _OPENING.match(text):
        return Frontmatter({}, text)
    try:
        raw, body = _HANDLER.split(text)
    except ValueError:
        return Frontmatter({}, text, "frontmatter opens with '---' but is never closed")
    try:
        data = yaml.load(raw, Loader=_NoAliasLoader) if raw.strip() else {}
    except yaml.YAMLError as exc:
        return Frontmatter({}, body, f"invalid YAML frontmatter: {_yaml_reason(exc)}")
    except RecursionError:
        return Frontmatter({}, body, "invalid YAML frontmatter: nested too deeply")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return Frontmatter({}, body, f"frontmatter is a {type(data).__name__}, not a mapping")
    return Frontmatter(_plain(data), body)


def tag_list(value: Any) -> list[str]:
    """Frontmatter tags: a list or a comma/space separated string, `#` optional."""
    tags: list[str] = []
    for item in as_strings(value):
        tags.extend(t.lstrip("#") for t in re.split(r"[,\s]+", item) if t.lstrip("#"))
    return tags


def prose(body: str) -> str:
    """The body with code blocks and inline code blanked out (links and tags there are not real)."""
    if not _MAYBE_CODE.search(body.replace("\r", "\n")):
        return _INLINE_CODE.sub(" ", "\n".join(body.splitlines()))
    lines = body.splitlines()
    for token in _MD_BLOCKS.parse(body):
        if token.type in ("fence", "code_block") and token.map:
            start, end = token.map
            for i in range(start, min(end, len(lines))):
                lines[i] = ""
    return _INLINE_CODE.sub(" ", "\n".join(lines))


def parse_link(inner: str, embed: bool = False, prop: str | None = None) -> Link | None:
    """`Note#Heading^block|Shown` -> Link; None for an empty target."""
    target, _, display = inner.replace("\\|", "|").partition("|")
    target, _, anchor = target.partition("#")
    heading = block = None
    if anchor.startswith("^"):
        block = anchor[1:] or None
    elif anchor:
        heading, _, block_part = anchor.partition("#^")
        block = block_part or None
    target = target.strip()
    if not target:
        return None
    return Link(target, display.strip() or None, heading, block, embed, prop)


def located_wikilinks(text: str) -> list[tuple[Link, int, int]]:
    """Wikilinks and embeds with their (start, end) span in the text."""
    found = []
    for match in _WIKILINK.finditer(text):
        link = parse_link(match.group(2), embed=bool(match.group(1)))
        if link:
            found.append((link, match.start(), match.end()))
    return found


def body_links(text: str) -> list[Link]:
    """Wikilinks, embeds and Markdown links to .md files found in prose."""
    links = [link for link, _, _ in located_wikilinks(text)]
    for match in _MDLINK.finditer(text):
        target = re.sub(r"%20", " ", match.group(3)).removesuffix(".md")
        if "://" not in target:
            links.append(Link(target, match.group(2) or None, match.group(4) or None, None, bool(match.group(1))))
    return links


def property_links(properties: dict[str, Any]) -> list[Link]:
    """Wikilinks that are values of frontmatter properties, tagged with the property name."""
    links: list[Link] = []
    for key, value in properties.items():
        for item in as_strings(value):
            for match in _WIKILINK.finditer(item):
                link = parse_link(match.group(2), prop=key)
                if link:
                    links.append(link)
    return links


def inline_tags(text: str) -> list[str]:
    """`#tag` and nested `#a/b` tags in prose (not headings, not numbers, not URL fragments)."""
    tags: list[str] = []
    for line in text.splitlines():
        if re.match(r"^\s{0,3}#{1,6}\s", line):
            line = re.sub(r"^\s{0,3}#{1,6}\s", "", line)
        tags.extend(m.group(1).rstrip("/-") for m in _TAG.finditer(line))
    return tags
