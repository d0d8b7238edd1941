"""Replacing a note's bytes safely: never partial, never over an edit, permissions kept.

A write is staged first: the note is checked (a plain file, writable, in a writable folder,
still holding the bytes that were read) and the new bytes go to a temp file in the same
folder, fsynced, with the note's mode and owner. The caller then makes its journal entries
durable, and commits: the note's hash is checked once more and the temp file is renamed
over it atomically. A crash at any point leaves the old or the new note, and at worst a
dot-file temp that the next run sweeps away.
"""

import fcntl
import hashlib
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mnemo.errors import MnemoError, WritebackRefused

TEMP_SUFFIX = ".mnemo-tmp"
MAX_NOTE_BYTES = 20 * 1024 * 1024


def note_file(root: Path, rel: str) -> Path | None:
    """The note at `rel` inside the source folder `root`; None when `rel` would leave it (empty,
    absolute, a `..` part, a backslash): a path read from the graph or the journal, which a
    restore or import brings in, never names a file elsewhere."""
    if not rel or "\\" in rel or rel.startswith("/") or ".." in rel.split("/"):
        return None
    return Path(root) / rel
_NAME_CHARS = 60
# `stage`'s temp names: "." + the note's name (cut to _NAME_CHARS) + "." + mkstemp's 8 random
# characters + TEMP_SUFFIX. Only names of that exact shape are ever swept.
_TEMP_NAME = re.compile(r"^\..+\.[a-z0-9_]{8}" + re.escape(TEMP_SUFFIX) + "$")


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_note(file: Path) -> bytes:
    """A note's bytes, refusing what must not be replaced by a rename."""
    info = os.lstat(file)
    if stat.S_ISLNK(info.st_mode):
        raise WritebackRefused("the note is a symlink; it is not written through")
    if not stat.S_ISREG(info.st_mode):
        raise WritebackRefused("not a regular file")
    if info.st_nlink > 1:
        raise WritebackRefused("the file has other hard links that a rename would separate")
    if info.st_size > MAX_NOTE_BYTES:
        raise WritebackRefused(f"file is {info.st_size} bytes, over the {MAX_NOTE_BYTES}-byte limit")
    return file.read_bytes()


@dataclass(frozen=True)
class Staged:
    """New bytes for a note, durable in a temp file beside it, not yet renamed into place."""

    file: Path
    temp: str
    expected: str

    def commit(self) -> Path:
        """Rename the temp file over the note if the note still holds the expected bytes."""
        try:
            if digest(self.file.read_bytes()) != self.expected:
                raise WritebackRefused(
                    "the note changed while it was being written; it will be retried on the next run"
                )
            os.replace(self.temp, self.file)
        finally:
            self.discard()
        return self.file

    def discard(self) -> None:
        if os.path.exists(self.temp):
            os.unlink(self.temp)


def stage(file: Path, data: bytes, expected: str) -> Staged:
    """Check the note can be replaced and write its new bytes to a synced temp file."""
    info = os.lstat(file)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        raise WritebackRefused("the note is no longer a plain file")
    if not info.st_mode & 0o222:
        raise WritebackRefused("the file is read-only")
    folder = file.parent
    if not os.stat(folder).st_mode & 0o222:
        raise WritebackRefused("its folder is read-only")
    if digest(file.read_bytes()) != expected:
        raise WritebackRefused("the note changed since it was read; it will be retried on the next run")
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{file.name[:_NAME_CHARS]}.", suffix=TEMP_SUFFIX)
    staged = Staged(file, temp, expected)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
            if os.geteuid() == 0 and (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
                os.fchown(handle.fileno(), info.st_uid, info.st_gid)
            os.fsync(handle.fileno())
    except BaseException:
        staged.discard()
        raise
    return staged




def sweep_temp_files(roots: list[Path]) -> int:
    """Remove the temp files a killed write-back left behind (only names `stage` makes); one
    that cannot be removed is left for a later run."""
    removed = 0
    for root in roots:
        for folder, _, files in os.walk(root):
            for name in files:
                if _TEMP_NAME.match(name) and _unlinked(os.path.join(folder, name)):
                    removed += 1
    return removed


def _unlinked(path: str) -> bool:
    try:
        os.unlink(path)
    except OSError:
        return False
    return True


@contextmanager
def run_lock(data_dir: Path) -> Iterator[None]:
    """One write-back or undo at a time per namespace."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / "writeback.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise MnemoError(f"another write-back is running for {data_dir}") from None
        yield
