"""How notes are linked: Obsidian by unique file name (else path), Logseq by page name (journal pages
by the graph's `:journal/page-title-format`), and which note is the journal page of a day."""

import os
import re
from pathlib import Path
from urllib.parse import unquote

from mnemo.config import SourceConfig
from mnemo.sources.logseq import graph_settings
from mnemo.sources.logseq_properties import page_name, page_properties, without_properties
from mnemo.sources.markdown import split_frontmatter
from mnemo.sources.note_layout import without_block
from mnemo.writeback.insights import NoteRef
from mnemo.writeback.journal_days import LogseqDays
from mnemo.writeback.obsidian_days import ObsidianDays

_OBSIDIAN_FORBIDDEN = set("[]#^|")
_TITLE_SCAN_CHARS = 16384


class LinkNames:
    """How a source's notes are linked: Obsidian by unique file name (else path), Logseq by page name
    (journal pages by the graph's `:journal/page-title-format`). `owned`: mnemo's folder of generated
    pages, whose file names do not count."""

    def __init__(self, source: SourceConfig, owned: str = "") -> None:
        self.kind = source.kind
        self.stems: dict[str, int] = {}
        self.titles: dict[str, str] = {}
        files = _note_files(source.path, (".md", ".org") if self.kind == "logseq" else (".md",))
        if owned and self.kind != "logseq":
            files = [rel for rel in files if not rel.startswith(owned.strip("/") + "/")]
        for rel in files:
            stem = Path(rel).stem.lower()
            self.stems[stem] = self.stems.get(stem, 0) + 1
        self.days: LogseqDays | ObsidianDays
        if self.kind == "logseq":
            self.days = LogseqDays(source.path, graph_settings(source.path), files)
            for rel in files:
                title = _logseq_title(source.path / rel) or self.days.title(rel)
                if title:
                    self.titles[rel] = title
        else:
            self.days = ObsidianDays(source.path, self.stems)

    def name(self, note: NoteRef) -> str | None:
        stem = Path(note.path).stem
        if self.kind == "logseq":
            name = page_name(stem, self.titles.get(note.path))
            return None if "[[" in name or "]]" in name or not name else name
        name = stem if self.stems.get(stem.lower(), 0) <= 1 else note.path.removesuffix(".md")
        return None if _OBSIDIAN_FORBIDDEN & set(name) else name


def _note_files(root: Path, suffixes: tuple[str, ...]) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [Path(folder, n).relative_to(root).as_posix() for n in files if n.lower().endswith(suffixes)]
    return sorted(found)  # not in the folder listing's order, which differs between copies of a vault


def _logseq_title(file: Path) -> str | None:
    """A Logseq page's `title::` property (or frontmatter `title:`), which names the page."""
    try:
        with open(file, encoding="utf-8") as handle:
            head = handle.read(_TITLE_SCAN_CHARS)
    except (OSError, UnicodeDecodeError):
        return None
    title = page_properties(head).get("title")
    if title is None and head.removeprefix("\ufeff").startswith("---"):
        value = split_frontmatter(head.removeprefix("\ufeff")).properties.get("title")
        title = value if isinstance(value, str) else None
    return title


_WIKILINK = re.compile(r"\[\[([^\[\]]+)\]\]")
_TAG = re.compile(r"(?<![\w&/])#([^\s#\[\],.;:!?()]+)")
# [text](Some%20Note.md), [text](<Some Note.md#part>)
_MARKDOWN_LINK = re.compile(r"\]\((?:<([^<>]+?\.md)(?:#[^>]*)?>|([^()<>\s]+?\.md)(?:#[^)\s]*)?)\)")
_LOGSEQ_REFS = re.compile(r"(?mi)^\s*(?:-\s+)?(?:tags|alias)::\s*(.+)$")


def own_links(text: str, kind: str, key: str) -> set[str]:
    """What the note already links, lower-cased, each also by its last path segment: wikilinks,
    Markdown links to notes, #tags, and in Logseq the pages of `tags::` and `alias::`. mnemo's own
    lines do not count."""
    rest = without_block(text, key)
    if kind == "logseq":
        rest = without_properties(rest, key)
    found = [m.split("|")[0].split("#")[0] for m in _WIKILINK.findall(rest)] + _TAG.findall(rest)
    targets = [a or b for a, b in _MARKDOWN_LINK.findall(rest)]
    found += [Path(unquote(t)).with_suffix("").as_posix() for t in targets if "://" not in t]
    if kind == "logseq":
        found += [part for line in _LOGSEQ_REFS.findall(rest) for part in line.split(",")]
    names = {name.strip().strip("[]").strip().lower() for name in found}
    return {n for n in names if n} | {n.rsplit("/", 1)[-1] for n in names if "/" in n}
