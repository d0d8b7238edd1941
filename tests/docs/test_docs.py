"""The README stays short and starts with `make demo`; every doc's links resolve and headings stay short."""

import importlib.util
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from tests.support import REPO

ROOT = REPO
README = ROOT / "README.md"
DOCS = sorted([README, *(ROOT / "docs").glob("*.md")])
SHELLS = {"bash", "sh", "shell", "console"}
MAX_README_BYTES = 15_000
MAX_HEADING = 80


def _tokens(path: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


def _inline_text(token: Token) -> str:
    return "".join(child.content for child in token.children or [] if child.type in {"text", "code_inline"})


def headings(path: Path) -> list[str]:
    """The text of every heading, outside code blocks."""
    tokens = _tokens(path)
    return [_inline_text(tokens[i + 1]) for i, token in enumerate(tokens) if token.type == "heading_open"]


def anchors(path: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings (a repeated one gets -1, -2, ...)."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    for heading in headings(path):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = counts.get(slug, 0)
        counts[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def links(path: Path) -> list[str]:
    """Every link target in the page (inline links, outside code)."""
    found = []
    for token in _tokens(path):
        for child in token.children or []:
            if child.type == "link_open":
                found.append(str(child.attrs.get("href", "")))
    return found


def shell_commands(path: Path) -> list[str]:
    """The commands of the page's shell code blocks, in order, without comments."""
    commands = []
    for token in _tokens(path):
        if token.type == "fence" and token.info.strip() in SHELLS:
            for line in token.content.splitlines():
                command = line.split("#", 1)[0].strip()
                if command:
                    commands.append(command)
    return commands


def broken_links(path: Path) -> list[str]:
    """Relative links of a page whose file, or whose #anchor in a Markdown file, does not exist."""
    broken = []
    for href in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", href):
            continue  # http:, https:, mailto: ...
        target, _, anchor = href.partition("#")
        resolved = (path.parent / target).resolve() if target else path
        if not resolved.exists():
            broken.append(f"{href} (no file {resolved})")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{href} (no heading #{anchor} in {resolved.name})")
    return broken


def test_readme_is_short() -> None:
    size = README.stat().st_size
    assert size <= MAX_README_BYTES, f"README.md is {size} bytes; move reference material to docs/"


def test_readme_first_commands_are_make_demo_then_make_test() -> None:
    assert shell_commands(README)[:2] == ["make demo", "make test"]


@pytest.mark.parametrize("path", DOCS, ids=[p.relative_to(ROOT).as_posix() for p in DOCS])
def test_relative_links_resolve(path: Path) -> None:
    assert broken_links(path) == []


@pytest.mark.parametrize("path", DOCS, ids=[p.relative_to(ROOT).as_posix() for p in DOCS])
def test_headings_are_short(path: Path) -> None:
    long = [heading for heading in headings(path) if len(heading) >= MAX_HEADING]
    assert long == []


def test_a_broken_link_and_a_missing_anchor_are_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A section\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md) [ok](other.md#a-section) [ok](#page) [web](https://example.org)\n"
        "[gone](missing.md) [bad anchor](other.md#nowhere)\n\n```bash\n# [not a link](nowhere.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        f"missing.md (no file {tmp_path / 'missing.md'})",
        "other.md#nowhere (no heading #nowhere in other.md)",
    ]


def test_headings_inside_code_blocks_do_not_count(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n```bash\n# " + "x" * 90 + "\n```\n\n## " + "y" * 85 + "\n", encoding="utf-8")
    assert headings(page) == ["Title", "y" * 85]


def test_readme_names_every_top_level_command() -> None:
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    cli_reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli_reference)
    group = cli_reference.root_group()  # the mnemo app, imported in one place
    text = README.read_text(encoding="utf-8")
    missing = [name for name, command in group.commands.items() if not command.hidden and not re.search(rf"\b{name}\b", text)]
    assert missing == [], f"README.md's command table does not name: {', '.join(missing)}"
