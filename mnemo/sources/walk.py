"""Walking a source folder: regular files only, no symlink out of the folder, editor temp files
and excluded paths skipped; each file left out is a problem named by its path."""

import os
import stat as stat_kind
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from mnemo.sources.ignore import in_folders, is_temp_file


@dataclass(frozen=True)
class Problem:
    """A source file mnemo could not read (or a source it could not use), and why."""

    path: str
    reason: str
    fatal: bool


def _excluded(rel: str, excludes: tuple[str, ...]) -> bool:
    parts = rel.split("/")
    if any(p.startswith(".") for p in parts[:-1]):
        return True
    return in_folders(rel, excludes)


def walk_files(
    root: Path, suffixes: tuple[str, ...], excludes: tuple[str, ...], problems: list[Problem],
) -> Iterator[tuple[str, str, os.stat_result]]:
    """Files below root with the given suffixes, in path order (a folder's files before its
    subfolders), each with its full path and its `stat`. Symlinks leading outside root are
    refused; a folder that cannot be listed or a file that cannot be stat'ed is a problem.
    Folders are listed with `os.scandir`, whose entries know their type and keep their stat: a
    walk of 10,000 notes with `os.walk`, a `Path` and a stat per file took 0.23-0.36 s, this
    one 0.08-0.14.


    A source whose path is a single file (a chat export) yields just that file.
    """
    if root.is_file():  # a regular file (or a link to one)
        yield root.name, str(root), root.stat()
        return
    real_root = root.resolve()
    folders = [(str(root), "")]
    while folders:
        folder, prefix = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            reason = f"cannot list folder ({exc.strerror or exc}; its files were skipped)"
            problems.append(Problem(prefix.rstrip("/") or ".", reason, True))
            continue
        below = []
        for entry in entries:
            if _is_folder(entry):
                if not entry.is_symlink():  # a link to a folder is not followed
                    below.append((entry.path, prefix + entry.name + "/"))
                continue
            if not entry.name.lower().endswith(suffixes) or is_temp_file(entry.name):
                continue
            rel = prefix + entry.name
            if _excluded(rel, excludes):
                continue
            if entry.is_symlink():
                refused = _symlink_problem(Path(entry.path), real_root)
                if refused:
                    problems.append(Problem(rel, refused, True))
                    continue
            stat = _regular_stat(entry, rel, problems)
            if stat is not None:
                yield rel, entry.path, stat
        folders.extend(reversed(below))


def _regular_stat(entry: os.DirEntry[str], rel: str, problems: list[Problem]) -> os.stat_result | None:
    """The entry's stat if it is a regular file (or a link to one); else a problem, and None."""
    try:
        stat = entry.stat()
    except OSError as exc:
        problems.append(Problem(rel, f"cannot stat file ({exc.strerror})", True))
        return None
    if not stat_kind.S_ISREG(stat.st_mode):
        problems.append(Problem(rel, f"{special_kind(stat.st_mode)}, not a regular file (not read)", True))
        return None
    return stat


def special_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    if stat_kind.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat_kind.S_ISSOCK(mode):
        return "a socket"
    if stat_kind.S_ISCHR(mode) or stat_kind.S_ISBLK(mode):
        return "a device"
    return "a special file"


def read_regular(path: str) -> bytes:
    """A regular file's bytes. Opened without blocking and checked on the open file, so a file
    replaced by a FIFO or a device after it was listed is refused, never waited on (OSError)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat_kind.S_ISREG(mode):
            raise OSError(0, f"{special_kind(mode)}, not a regular file")
        return handle.read()


def _is_folder(entry: os.DirEntry[str]) -> bool:
    """`os.walk`'s test: a folder, or a link to one (a broken link is a file)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _symlink_problem(path: Path, real_root: Path) -> str | None:
    try:
        target = path.resolve(strict=True)
    except RuntimeError:
        return "symlink loop (the link points back to itself; not followed)"
    except OSError as exc:
        return f"broken symlink ({exc.strerror or exc}; not followed)"
    if not target.is_relative_to(real_root) or not target.is_file():
        return "symlink pointing outside the source folder (not followed)"
    return None
