"""Taking mnemo's block out of a note gives back the note as it was before mnemo wrote one, byte
for byte: Obsidian frontmatter (with and without a frontmatter of its own) and Logseq pages."""

from pathlib import Path

import pytest

from mnemo.forget_notes import block_removal, difference
from mnemo.errors import WritebackRefused
from mnemo.writeback import note_patch
from tests.conftest import EXAMPLE_VAULT, corpus

VALUES = {"about": ["person_id:dana_kim"], "related": ["[[Café Lusitano]]"], "summary": "Coffee once a month.",
          "salience": 0.42, "consolidated": "2026-11-27"}


def _round_trip(text: str, kind: str) -> None:
    try:
        patch = note_patch(text, kind, "mnemo", VALUES)
    except WritebackRefused:  # opted out, or a frontmatter write-back never touches
        return
    assert patch is not None
    written = patch.apply(text)
    removal = block_removal(written, kind, "mnemo", patch.new.lstrip("\ufeff").startswith("---"))
    assert removal is not None and removal.apply(written) == text
    assert block_removal(text, kind, "mnemo") is None  # a note without a block is left alone


@pytest.mark.parametrize("rel", sorted(p.relative_to(EXAMPLE_VAULT).as_posix() for p in EXAMPLE_VAULT.rglob("*.md")))
def test_obsidian_notes_come_back_byte_for_byte(rel: str) -> None:
    _round_trip((EXAMPLE_VAULT / rel).read_text(encoding="utf-8"), "obsidian")


def test_notes_without_frontmatter_and_with_crlf_come_back() -> None:
    for text in ("# Plain\n\nNo frontmatter here.\n", "---\r\ntype: person\r\n---\r\n# Windows\r\n", "\ufeff---\ntitle: x\n---\nbody",
                 "---\n---\n# An empty frontmatter of the person's own\n"):
        _round_trip(text, "obsidian")


def test_logseq_pages_come_back_byte_for_byte() -> None:
    pages = sorted(corpus("logseq-docs", "pages").glob("*.md"))[:60]
    for page in pages:
        _round_trip(page.read_text(encoding="utf-8"), "logseq")


def test_difference_is_the_one_replacement_between_two_texts() -> None:
    assert difference("abc", "abc") is None
    for old, new in (("a-mnemo-b", "ab"), ("xx", "x"), ("", "abc"), ("aaa", "aa")):
        patch = difference(old, new)
        assert patch is not None and patch.apply(old) == new
