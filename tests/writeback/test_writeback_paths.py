"""A note path read from the graph or the journal (which a restore or import brings in) never
names a file outside its source folder: write-back skips it and undo leaves it alone."""

from pathlib import Path

from mnemo.writeback.frontmatter import frontmatter_patch
from mnemo.writeback.journal import Journal
from mnemo.writeback.note_files import digest, note_file
from mnemo.writeback.run import NoteChange, WritebackPlan, apply_plan, undo_run


def test_a_note_path_that_leaves_the_source_is_no_file(tmp_path: Path) -> None:
    assert note_file(tmp_path, "People/Dana.md") == tmp_path / "People" / "Dana.md"
    for rel in ("../outside.md", "/etc/passwd", "a/../../b.md", "", "a\\..\\b.md"):
        assert note_file(tmp_path, rel) is None


def test_undo_leaves_alone_a_journal_entry_whose_file_is_outside_its_source(tmp_path: Path) -> None:
    vault, outside = tmp_path / "vault", tmp_path / "outside.md"
    vault.mkdir()
    text = "# Outside\n"
    outside.write_text(text, encoding="utf-8")
    patch = frontmatter_patch(text, "mnemo", {"related": ["[[x]]"]})
    assert patch is not None
    journal = Journal(tmp_path / "journal.jsonl")
    change = NoteChange("vault", "outside.md", outside, digest(text.encode()), text, patch)  # as a hostile journal
    apply_plan(WritebackPlan(changes=[change]), journal, "wb-1")
    written = outside.read_bytes()
    undone = undo_run(journal, "wb-1", {"vault": vault})
    assert undone.written == [] and "not a note of source 'vault'" in undone.skipped[0].reason
    assert outside.read_bytes() == written
