"""Files no source reads and no sensor watches: editor temp files and tool folders."""

from fnmatch import fnmatch
from pathlib import PurePosixPath

TEMP_PATTERNS = (".#*", "~$*", "*.tmp", "*.swp", "*.swx", "*~", "#*#", ".DS_Store", "*.crdownload", "*.part")
IGNORED_DIRS = (".obsidian", ".trash", ".git", ".recycle", ".stfolder", ".stversions")


def is_temp_file(name: str) -> bool:
    """An editor's swap, lock or backup file (`.#note.md`, `~$note.md`, `note.md.tmp`, ...)."""
    return any(fnmatch(name, pattern) for pattern in TEMP_PATTERNS)


def is_ignored(rel: str) -> bool:
    """True for temp files and for anything inside a hidden or tool folder."""
    path = PurePosixPath(rel)
    return is_temp_file(path.name) or any(part.startswith(".") or part in IGNORED_DIRS for part in path.parts[:-1])
