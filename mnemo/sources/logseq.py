"""Logseq graphs: each Markdown page (pages/ and journals/) is one Document, its outline
blocks are the segments (nesting kept as parent links).

Page properties are the `key:: value` lines before the first bullet (or YAML frontmatter);
block properties are such lines inside a block, `id::` giving the block's uuid. `alias::`,
`tags::`, `title::` and `type::` are understood; `[[links]]`, `#tags` and `#[[multi word]]`
are links; `((uuid))` block references stay in the text and are resolved to the block's
text when chunking. Journal dates come from file names in the format `config.edn` sets
(`:journal/file-name-format`, default yyyy_MM_dd). Namespaced pages keep their `a/b` name.
"""

import datetime as dt
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

from mnemo.documents import Document, Link, Segment, content_hash
from mnemo.errors import SourceError
from mnemo.sources.chats import iso_time
from mnemo.sources.logseq_org import markdown_outline
from mnemo.sources.markdown import body_links, prose, split_frontmatter

SUFFIXES = (".md", ".org")
DEFAULT_EXCLUDES = ("logseq", "assets", "draws", "whiteboards")
DEFAULT_JOURNAL_FORMAT = "yyyy_MM_dd"
_PROPERTY = re.compile(r"^\s*([A-Za-z0-9_][A-Za-z0-9_\-./]*)::(?:\s+(.*)|\s*)$")
_BULLET = re.compile(r"^([ \t]*)-(?:[ \t]+(.*)|[ \t]*)$")
_DRAWER_OPEN = re.compile(r"^\s*:([A-Za-z_]+):\s*$")
_DRAWER_END = re.compile(r"^\s*:END:\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_TAG_LINK = re.compile(r"(?<![\w#])#\[\[([^\[\]\n]+)\]\]")
_TAG = re.compile(r"(?<![\w#\[(/])#(\w[^\s#\[\](){},.!?;:\"'*`]*)")  # not #+BEGIN_QUOTE, not **bold**
_LINKED = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_LIST_ITEM = re.compile(r"#?\[\[([^\[\]\n]+)\]\]|([^,\[\]]+)")
BLOCK_REF = re.compile(r"\(\(([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)\)")
_DATE_TOKENS = (("yyyy", r"(?P<y>\d{4})"), ("MM", r"(?P<m>\d{2})"), ("dd", r"(?P<d>\d{2})"),
                ("M", r"(?P<m>\d{1,2})"), ("d", r"(?P<d>\d{1,2})"))


@dataclass(frozen=True)
class GraphSettings:
    """What a graph's `logseq/config.edn` says about file names."""

    journal_pattern: re.Pattern[str]
    journals_dir: str = "journals"


@dataclass
class _Block:
    indent: int
    line: int
    lines: list[str] = field(default_factory=list)
    parent: "_Block | None" = None
    depth: int = 0


def journal_pattern(fmt: str) -> re.Pattern[str]:
    """`yyyy_MM_dd` -> a regex with groups y, m, d."""
    out, i = "", 0
    while i < len(fmt):
        for token, regex in _DATE_TOKENS:
            if fmt.startswith(token, i) and f"?P<{regex[4]}>" not in out:
                out, i = out + regex, i + len(token)
                break
        else:
            out, i = out + re.escape(fmt[i]), i + 1
    return re.compile(f"^{out}$")


def graph_settings(root: Path) -> GraphSettings:
    """Journal file-name format and folder from config.edn (defaults when absent)."""
    try:
        text = (root / "logseq" / "config.edn").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    text = "\n".join(line.split(";", 1)[0] if not line.lstrip().startswith('"') else line for line in text.splitlines())
    fmt = re.search(r':journal/file-name-format\s+"([^"]+)"', text)
    folder = re.search(r':journals-directory\s+"([^"]+)"', text)
    return GraphSettings(journal_pattern(fmt.group(1) if fmt else DEFAULT_JOURNAL_FORMAT),
                         folder.group(1).strip("/") if folder else "journals")


def page_name(stem: str) -> str:
    """File name -> page name: `Community___Query%3F` -> `Community/Query?`."""
    return unquote(stem.replace("___", "/"))


def journal_day(rel: str, settings: GraphSettings) -> str | None:
    path = PurePosixPath(rel)
    if len(path.parts) < 2 or path.parts[0] != settings.journals_dir:
        return None
    match = settings.journal_pattern.match(path.stem)
    if not match:
        return None
    try:
        return dt.date(int(match["y"]), int(match["m"]), int(match["d"])).isoformat()
    except ValueError:
        return None


def link_names(value: str) -> list[str]:
    """`[[A]], [[B c]]` / `a, b` -> names; plain values split on commas."""
    names = []
    for linked, plain in _LIST_ITEM.findall(value):
        name = linked.strip() or plain.strip().lstrip("#").strip()
        if name:
            names.append(name)
    return names


def _property_value(key: str, raw: str) -> Any:
    names = link_names(raw)
    if key in ("alias", "tags") or (_LINKED.search(raw) and _LINKED.sub("", raw).strip(" ,") == ""):
        return names if len(names) != 1 or key in ("alias", "tags") else names[0]
    return raw.strip()


def _outline(lines: list[str], start: int) -> tuple[list[_Block], list[str]]:
    """Group lines into blocks by bullets and indentation."""
    blocks: list[_Block] = []
    preamble: list[str] = []
    stack: list[_Block] = []
    in_fence = False
    for number, line in enumerate(lines[start:], start=start + 1):
        match = None if in_fence else _BULLET.match(line)
        if _FENCE.match(match.group(2) or "" if match else line):
            in_fence = not in_fence
        if match:
            indent = len(match.group(1).expandtabs(4))
            while stack and stack[-1].indent >= indent:
                stack.pop()
            block = _Block(indent, number, [match.group(2) or ""], stack[-1] if stack else None, len(stack))
            blocks.append(block)
            stack.append(block)
        elif blocks:
            blocks[-1].lines.append(line.strip() if not in_fence else line)
        else:
            preamble.append(line)
    return blocks, preamble


def _split_block(block: _Block, problems: list[str]) -> tuple[str, dict[str, str]]:
    """A block's text without its property lines and drawers, and its properties."""
    text_lines: list[str] = []
    properties: dict[str, str] = {}
    drawer: tuple[str, int] | None = None
    for offset, line in enumerate(block.lines):
        if drawer:
            if _DRAWER_END.match(line):
                drawer = None
            continue
        opened = _DRAWER_OPEN.match(line)
        if opened and opened.group(1).upper() != "END":
            drawer = (opened.group(1), block.line + offset)
            continue
        prop = _PROPERTY.match(line)
        if prop and not line.lstrip().startswith(("-", "#")):
            properties[prop.group(1).lower()] = (prop.group(2) or "").strip()
            continue
        text_lines.append(line)
    if drawer:
        problems.append(f"line {drawer[1]}: drawer :{drawer[0]}: is never closed with :END: (its lines were left out)")
    return "\n".join(text_lines).strip(), properties


def _links(text: str) -> tuple[list[Link], list[str]]:
    """[[links]], #tags and #[[multi word]] tags of a block's text (outside code)."""
    plain = prose(text)
    tags = [m.group(1).strip() for m in _TAG_LINK.finditer(plain)]
    tags += [m.group(1).rstrip("/-") for m in _TAG.finditer(_TAG_LINK.sub(" ", plain)) if not m.group(1).isdigit()]
    links = [link for link in body_links(plain) if "://" not in link.target]
    return links + [Link(tag) for tag in tags], tags


def _segments(blocks: list[_Block], problems: list[str]) -> tuple[list[Segment], list[Link], list[str]]:
    segments: list[Segment] = []
    links: list[Link] = []
    tags: list[str] = []
    ids: dict[int, str] = {}
    seen: dict[tuple[str | None, str], int] = {}
    for block in blocks:
        text, properties = _split_block(block, problems)
        parent = ids.get(id(block.parent)) if block.parent else None
        uuid = properties.pop("id", "").strip().lower()
        occurrence = seen.get((parent, text), 0)
        seen[(parent, text)] = occurrence + 1
        block_id = uuid or "block-" + content_hash(parent or "", text, str(occurrence))
        ids[id(block)] = block_id
        found, found_tags = _links(text)
        links += found
        tags += found_tags
        for key, value in properties.items():
            links += [Link(name, property=key) for name in _LINKED.findall(value)]
        meta: dict[str, Any] = {"line": block.line}
        if properties:
            meta["properties"] = properties
        segments.append(Segment(id=block_id, text=text, kind="block", parent=parent, depth=block.depth, meta=meta))
    return segments, links, tags


def _page_properties(preamble: list[str], blocks: list[_Block]) -> dict[str, str]:
    """`key:: value` lines before the first bullet, else a first block made only of properties."""
    found = {m.group(1).lower(): (m.group(2) or "").strip() for line in preamble if (m := _PROPERTY.match(line))}
    if (
        not found
        and blocks
        and blocks[0].depth == 0
        and all(_PROPERTY.match(x) or not x.strip() for x in blocks[0].lines)
    ):
        found = {
            m.group(1).lower(): (m.group(2) or "").strip() for x in blocks.pop(0).lines if (m := _PROPERTY.match(x))
        }
    return found


def _created(properties: dict[str, Any]) -> str | None:
    for key in ("created-at", "created_at", "created"):
        value = properties.get(key)
        stamp = iso_time(int(value) if isinstance(value, str) and value.isdigit() else value)
        if stamp:
            return stamp
    return None


def parse_page(
    text: str, *, namespace: str, source: str, rel: str, modified: str | None, settings: GraphSettings
) -> Document:
    """Parse one Markdown page of a Logseq graph."""
    meta = split_frontmatter(text.removeprefix("\ufeff"))
    problems = [meta.problem] if meta.problem else []
    lines = meta.body.splitlines()
    blocks, preamble = _outline(lines, 0)
    raw_props = _page_properties(preamble, blocks)
    properties: dict[str, Any] = {**meta.properties, **{k: _property_value(k, v) for k, v in raw_props.items()}}
    segments, links, tags = _segments(blocks, problems)
    loose = "\n".join(line for line in preamble if line.strip() and not _PROPERTY.match(line)).strip()
    if loose:
        segments.insert(
            0, Segment(id="block-" + content_hash("", loose, "preamble"), text=loose, kind="block", meta={"line": 1})
        )
        links += _links(loose)[0]
    links = [Link(name, property=key) for key, raw in raw_props.items() for name in _LINKED.findall(raw)] + links
    day = journal_day(rel, settings)
    name = page_name(PurePosixPath(rel).stem)
    title = str(properties.get("title") or "").strip() or (day or name)
    aliases = [a for a in link_names(raw_props.get("alias", "")) + ([name] if title != name else []) if a != title]
    page_tags = link_names(raw_props.get("tags", "")) if "tags" in raw_props else []
    return Document(
        id="doc_" + content_hash(namespace, source, rel), namespace=namespace, source=source, path=rel,
        title=title, kind="journal" if day else "note", body=meta.body, content_hash=content_hash(text),
        aliases=list(dict.fromkeys(aliases)), tags=list(dict.fromkeys(page_tags + tags)), properties=properties,
        links=links, created=day or _created(properties), modified=modified, day=day, problems=problems,
        segments=segments,
    )


def parse_file(
    data: bytes, namespace: str, source: str, rel: str, modified: str | None, settings: GraphSettings | None = None
) -> list[Document]:
    """A page file (Markdown, or Org mode read as its outline: `mnemo.sources.logseq_org`) -> [Document]."""
    if not data.strip():
        raise SourceError(rel, "empty file, nothing to ingest")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(rel, f"invalid UTF-8 at byte {exc.start}") from None
    settings = settings or GraphSettings(journal_pattern(DEFAULT_JOURNAL_FORMAT))
    if PurePosixPath(rel).parts[0] not in ("pages", settings.journals_dir):
        return []  # Logseq itself reads only pages/ and the journals folder (not README, LICENSE, ...)
    if rel.lower().endswith(".org"):
        text = markdown_outline(text)
    return [parse_page(text, namespace=namespace, source=source, rel=rel, modified=modified, settings=settings)]
