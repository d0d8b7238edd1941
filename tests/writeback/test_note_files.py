"""Staged note writes: an edit that lands between staging and renaming wins; nothing is left behind."""

import os
from pathlib import Path

import pytest

from mnemo.errors import WritebackRefused
from mnemo.writeback.note_files import digest, read_note, stage, sweep_temp_files


def test_an_edit_between_stage_and_commit_is_kept(tmp_path: Path) -> None:
    note = tmp_path / "Note.md"
    note.write_bytes(b"old\n")
    staged = stage(note, b"new\n", digest(b"old\n"))
    assert len(list(tmp_path.iterdir())) == 2
    note.write_bytes(b"edited by hand\n")
    with pytest.raises(WritebackRefused, match="changed while it was being written"):
        staged.commit()
    assert note.read_bytes() == b"edited by hand\n"
    assert [p.name for p in tmp_path.iterdir()] == ["Note.md"]


def test_commit_replaces_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    note = tmp_path / "Note.md"
    note.write_bytes(b"old\n")
    note.chmod(0o600)
    stage(note, b"new\n", digest(b"old\n")).commit()
    assert note.read_bytes() == b"new\n" and (note.stat().st_mode & 0o777) == 0o600


def test_links_and_leftovers(tmp_path: Path) -> None:
    target = tmp_path / "Target.md"
    target.write_bytes(b"x\n")
    (tmp_path / "Link.md").symlink_to(target)
    os.link(target, tmp_path / "Hard.md")
    with pytest.raises(WritebackRefused, match="symlink"):
        read_note(tmp_path / "Link.md")
    with pytest.raises(WritebackRefused, match="hard links"):
        read_note(tmp_path / "Hard.md")
    (tmp_path / ".Target.md.abc123de.mnemo-tmp").write_bytes(b"half")  # mkstemp: 8 random characters
    (tmp_path / "keep.mnemo-tmp.md").write_bytes(b"a note")
    assert sweep_temp_files([tmp_path]) == 1
    assert (tmp_path / "keep.mnemo-tmp.md").exists()
