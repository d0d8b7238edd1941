"""Taking mnemo's block out of a note gives back the note as it was before mnemo wrote one, byte
for byte: Obsidian frontmatter (with and without a frontmatter of its own) and Logseq pages."""

import datetime as dt
from pathlib import Path

import pytest

from mnemo.config import MnemoConfig, load_config
from mnemo.errors import WritebackRefused
from mnemo.maintenance.forget_notes import block_removal, difference, remove_blocks
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.forget_journal import PageRef
from mnemo.writeback.note_files import run_lock
from mnemo.writeback.run import note_patch
from tests.support import EXAMPLE_VAULT, corpus, make_workspace

VALUES = {"related": ["[[Café Lusitano]]"], "mentions": ["Dana Kim"], "summary": "Coffee once a month.",
          "updated": dt.date(2026, 11, 27)}


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


def _page(workspace_root: Path, text: str) -> tuple[MnemoConfig, PageRef, Path]:
    vault = workspace_root / "vault"
    (vault / "People").mkdir(parents=True)
    note = vault / "People" / "Dana Kim.md"
    note.write_text(text, encoding="utf-8")
    config = load_config(make_workspace(workspace_root, {"test": [{"kind": "obsidian", "path": str(vault)}]}).config_path)
    label = config.namespace("test").sources[0].label
    doc = PageRef(label, "People/Dana Kim.md")
    return config, doc, note


def test_a_running_write_back_leaves_the_block_and_the_report_says_so(tmp_path: Path) -> None:
    original = "---\ntype: person\n---\n# Dana Kim\n"
    written = note_patch(original, "obsidian", "mnemo", VALUES).apply(original)
    config, doc, note = _page(tmp_path, written)
    with run_lock(NamespaceFiles(config.data_dir, "test").root):
        busy = remove_blocks(config, "test", [doc])
    assert busy is not None and not busy.written and "another write-back is running" in busy.skipped[0].reason
    assert note.read_text(encoding="utf-8") == written
    done = remove_blocks(config, "test", [doc])
    assert done is not None and done.written == ["People/Dana Kim.md"] and note.read_text(encoding="utf-8") == original
    assert remove_blocks(config, "test", [doc]) is None  # no block left: nothing to do
