"""Durable writes: a file is replaced whole or not at all.

Every writer in mnemo goes through `replacing` (or the `write_*` functions built on it): the
new content goes to a temp file in the target's folder (a dot-name ending in `.tmp`, which
backups, exports and the scanners skip), is fsynced, takes the target's mode (a new file gets
the process's default mode unless a `mode` is given), and passes the named fault point just
before it is renamed over the target. A crash leaves the old file or the new one, never a mix,
and at worst a temp file. Folders are not fsynced per write: a batch that needs its renames to
survive a power cut calls `sync_folders` once at its end.
"""

import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mnemo.stores import faults

TEMP_SUFFIX = ".tmp"
_NAME_CHARS = 60


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


DEFAULT_MODE = _default_mode()  # read once, at import: os.umask can only be read by setting it


@contextmanager
def replacing(path: Path, point: str, mode: int | None = None) -> Iterator[Path]:
    """A temp path to write the new content to; on a clean exit it replaces `path` durably."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:_NAME_CHARS]}.", suffix=TEMP_SUFFIX)
    os.close(fd)
    temp = Path(name)
    try:
        yield temp
        _settle(temp, path, mode)
        faults.point(point)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def _settle(temp: Path, target: Path, mode: int | None) -> None:
    """Give the temp file its final mode and make its content durable."""
    if mode is None:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = DEFAULT_MODE
    fd = os.open(temp, os.O_RDONLY)
    try:
        os.fchmod(fd, mode)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes(path: Path, data: bytes, point: str, mode: int | None = None) -> None:
    with replacing(path, point, mode) as temp:
        temp.write_bytes(data)


def write_text(path: Path, text: str, point: str, mode: int | None = None) -> None:
    write_bytes(path, text.encode("utf-8"), point, mode)


def write_json(
    path: Path, value: Any, point: str, *, indent: int | None = 1, sort_keys: bool = False, mode: int | None = None
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=sort_keys)
    write_text(path, text, point, mode)


def sync_folders(folders: Iterable[Path]) -> None:
    """Make the renames into these folders durable: one fsync each."""
    for folder in sorted(set(folders)):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
