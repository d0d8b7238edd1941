"""Files no source reads and no sensor watches: editor temp files and tool folders."""

import re
from fnmatch import translate
from pathlib import PurePosixPath

TEMP_PATTERNS = (".#*", "~$*", "*.tmp", "*.swp", "*.swx", "*~", "#*#", ".DS_Store", "*.crdownload", "*.part")
IGNORED_DIRS = (".obsidian", ".trash", ".git", ".recycle", ".stfolder", ".stversions")
_TEMP = re.compile("|".join(translate(p) for p in TEMP_PATTERNS))  # case-sensitive, as fnmatch on POSIX


def is_temp_file(name: str) -> bool:
    """An editor's swap, lock or backup file (`.#note.md`, `~$note.md`, `note.md.tmp`, ...)."""
    return _TEMP.match(name) is not None


def is_ignored(rel: str) -> bool:
    """True for temp files and for anything inside a hidden or tool folder."""
    path = PurePosixPath(rel)
    return is_temp_file(path.name) or any(part.startswith(".") or part in IGNORED_DIRS for part in path.parts[:-1])


def in_folders(rel: str, folders: tuple[str, ...]) -> bool:
    """Whether a relative path is one of the folders (or files) named, or inside one of them."""
    return any(rel == f.strip("/") or rel.startswith(f.strip("/") + "/") for f in folders if f.strip("/"))
