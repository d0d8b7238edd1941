"""What an archive (a backup or an export) may hold before restore or import writes any of it.

An archive is data, never a set of paths: every member's name is checked against a closed
pattern (letters, digits and `_.=+-` in each part, no `.` or `..` part, no absolute path), and
only regular files and folders are accepted (a symbolic link, a hard link, a device, a fifo or
a socket is refused). An inbox memory's id must be a memory id and its file's name, since the
id names the file the memory is saved to again. The total size written is bounded by
the configuration's `archives` section (`ArchivesConfig`). Every refusal is an UnsafeArchive
naming the member and the reason.
"""

import json
import os
import re
import stat
from pathlib import Path

from mnemo.config import ArchivesConfig
from mnemo.errors import MnemoError
from mnemo.sources.memory_files import INBOX, MemoryFileError, check_memory_file_id

_PART = re.compile(r"[A-Za-z0-9_.=+-]{1,255}", re.ASCII)
MAX_DEPTH = 16


class UnsafeArchive(MnemoError):
    """An archive member that restore or import will not write: its name, kind, content or size."""

    def __init__(self, member: str, reason: str) -> None:
        super().__init__(f"{member}: {reason}; nothing was written")
        self.member, self.reason = member, reason


DEFAULT_LIMITS = ArchivesConfig()


def allowed_bytes(limits: ArchivesConfig, archive_bytes: int) -> int:
    """What an archive of `archive_bytes` may write: `max_ratio` times it, at least `min_bytes`,
    at most `max_bytes`."""
    return min(limits.max_bytes, max(limits.min_bytes, int(limits.max_ratio * archive_bytes)))


def check_member_name(name: object) -> str:
    """A member's relative POSIX path, when every part of it follows the closed pattern."""
    if not isinstance(name, str) or not name:
        raise UnsafeArchive(repr(name), "not a file name")
    parts = name.split("/")
    if len(name) > 1024 or len(parts) > MAX_DEPTH:
        raise UnsafeArchive(repr(name[:80]), "name too long or too deep")
    for part in parts:
        if part in (".", "..") or not _PART.fullmatch(part):
            raise UnsafeArchive(repr(name), f"its part {part!r} is not allowed (absolute, '..' or odd characters)")
    return name


def check_size(total: int, archive_bytes: int, limits: ArchivesConfig, archive: Path) -> None:
    """Refuse an archive that would write more than `limits` allow."""
    allowed = allowed_bytes(limits, archive_bytes)
    if total > allowed:
        raise UnsafeArchive(
            str(archive), f"it would write {total:,} bytes, over the limit of {allowed:,} for its {archive_bytes:,} "
            f"bytes (archives: max_ratio {limits.max_ratio:g}, min_bytes {limits.min_bytes:,}, max_bytes "
            f"{limits.max_bytes:,})")


def regular_files(folder: Path) -> dict[str, int]:
    """Every file under `folder` (relative POSIX path -> size), walked without following links;
    a symbolic link, a hard link, a device, a fifo or a socket anywhere below it is refused."""
    found: dict[str, int] = {}
    for top, dirs, names in os.walk(folder, followlinks=False):
        for name in [*dirs, *names]:
            path = Path(top, name)
            rel = path.relative_to(folder).as_posix()
            check_member_name(rel)
            info = path.lstat()
            if stat.S_ISDIR(info.st_mode):
                continue
            check_regular(rel, info)
            found[rel] = info.st_size
    return found


def check_regular(rel: str, info: os.stat_result) -> None:
    """A member that is one plain file: not a link of either kind, a device, a fifo or a socket."""
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeArchive(rel, "a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeArchive(rel, "not a regular file (a device, fifo or socket)")
    if info.st_nlink > 1:
        raise UnsafeArchive(rel, f"a hard link ({info.st_nlink} names for one file)")


def check_written(root: Path) -> None:
    """What was unpacked or copied under `root`: plain files and folders only, all inside it."""
    resolved = root.resolve()
    regular_files(root)
    for top, dirs, names in os.walk(root, followlinks=False):
        for name in [*dirs, *names]:
            if not Path(top, name).resolve().is_relative_to(resolved):
                raise UnsafeArchive(Path(top, name).relative_to(root).as_posix(), "it leaves the target folder")


def check_inbox_files(root: Path, prefix: str = "") -> None:
    """Every memory file in `root`'s inbox holds a memory id that is its own file's name."""
    inbox = root / INBOX
    if not inbox.is_dir():
        return
    for path in sorted(inbox.iterdir()):
        if path.suffix != ".json":
            continue
        member = f"{prefix}{INBOX}/{path.name}"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UnsafeArchive(member, f"not a readable memory file ({exc})") from None
        try:
            check_memory_file_id(path.name, data.get("id") if isinstance(data, dict) else None)
        except MemoryFileError as exc:
            raise UnsafeArchive(member, str(exc).removeprefix(f"{path.name}: ")) from None
