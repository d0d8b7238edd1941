"""Through real files and the journal: a write-back run and its undo give back the exact bytes."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from test_patch_frontmatter import KEY, notes

from mnemo.writeback.frontmatter import frontmatter_patch
from mnemo.writeback.journal import Journal
from mnemo.writeback.note_files import digest
from mnemo.writeback.run import NoteChange, WritebackPlan, apply_plan, undo_run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes())
def test_undo_through_the_journal_restores_the_bytes(case: tuple[str, str, dict[str, object]]) -> None:
    text, _, value = case
    patch = frontmatter_patch(text, KEY, value)
    if patch is None:
        return
    with tempfile.TemporaryDirectory() as tmp:
        note = Path(tmp) / "vault" / "Note.md"
        note.parent.mkdir()
        original = text.encode("utf-8")
        note.write_bytes(original)
        journal = Journal(Path(tmp) / "journal.jsonl")
        change = NoteChange("vault", "Note.md", note, digest(original), text, patch)
        report = apply_plan(WritebackPlan(changes=[change]), journal, "wb-1")
        assert report.written == ["Note.md"] and note.read_bytes() == patch.apply(text).encode("utf-8")
        undone = undo_run(journal, "wb-1", {"vault": note.parent})
        assert undone.written == ["Note.md"] and note.read_bytes() == original
        assert [e.op for e in journal.entries()] == ["write", "undo"]
