"""Generated pages on disk: created, replaced and removed in mnemo's own folder, journaled.

Only files that start with the generated marker (sources/generated.py) are ever replaced or
removed; a file of the person's at a page's path is left alone and reported. Each change is
journaled (op `page`: the text before, "" for a page that did not exist, and the text after,
"" for a page removed) before it is made, so undoing the run restores the folder exactly.
"""

import datetime as dt
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mnemo.errors import WritebackRefused
from mnemo.sources.generated import is_generated
from mnemo.stores import durable
from mnemo.writeback.journal import Journal, JournalEntry
from mnemo.writeback.note_files import TEMP_SUFFIX, digest, read_note, stage

PAGE_OP = "page"
UNDO_OP = "page-undo"


@dataclass(frozen=True)
class PageChange:
    source: str
    root: Path
    path: str
    old: str  # "" when the page does not exist yet
    new: str  # "" when the page is removed
    owned: str = ""  # the folder mnemo owns (Obsidian), emptied folders in it are removed

    @property
    def file(self) -> Path:
        return self.root / self.path


@dataclass
class PagePlan:
    changes: list[PageChange] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def owned_files(root: Path, kind: str, folder: str) -> list[str]:
    """The files in mnemo's place for generated pages, relative to the source root."""
    if kind == "logseq":
        pages = root / "pages"
        found = pages.glob(f"{folder}___*.md") if pages.is_dir() else []
        return sorted(p.relative_to(root).as_posix() for p in found if p.is_file())
    base = root / folder
    return sorted(p.relative_to(root).as_posix() for p in base.rglob("*.md") if p.is_file()) if base.is_dir() else []


def plan_pages(label: str, root: Path, kind: str, folder: str, wanted: dict[str, str], key: str) -> PagePlan:
    """Compare the pages wanted (path -> text) with what is in the owned folder."""
    plan = PagePlan()
    existing = set(owned_files(root, kind, folder))
    for rel in sorted(existing | set(wanted)):
        current = _current(root / rel, key) if rel in existing else ""
        if isinstance(current, WritebackRefused):
            plan.skipped.append((rel, str(current)))
        elif current == wanted.get(rel, ""):
            plan.unchanged += rel in wanted
        else:
            owned = folder if kind != "logseq" else ""
            plan.changes.append(PageChange(label, root, rel, current, wanted.get(rel, ""), owned))
    return plan


def _current(file: Path, key: str) -> str | WritebackRefused:
    try:
        data = read_note(file)
    except (OSError, WritebackRefused) as exc:
        return WritebackRefused(f"cannot read the page ({exc})")
    if not is_generated(data, key):
        return WritebackRefused("a note of yours is where mnemo would put a generated page; it is left alone")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return WritebackRefused("the page is not UTF-8; it is left alone")


def _hash(text: str) -> str:
    return digest(text.encode("utf-8")) if text else ""


def entry_for(change: PageChange, run: str, op: str = PAGE_OP) -> JournalEntry:
    at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return JournalEntry(run, op, at, change.source, change.path, str(change.file), 0, change.old, change.new,
                        _hash(change.old), _hash(change.new))


def apply_pages(
    changes: list[PageChange], journal: Journal, run: str, op: str = PAGE_OP,
) -> tuple[list[str], list[tuple[str, str]]]:
    """Journal the changes, then make each; (paths done, (path, reason) skipped)."""
    journal.append_many([entry_for(c, run, op) for c in changes])
    done, skipped = [], []
    for change in changes:
        try:
            _make(change)
        except (WritebackRefused, OSError) as exc:
            skipped.append((change.path, str(exc)))
            continue
        done.append(change.path)
    durable.sync_folders(c.file.parent for c in changes if c.file.parent.is_dir())
    return done, skipped


def _make(change: PageChange) -> None:
    file = change.file
    if not change.new:
        if digest(read_note(file)) != _hash(change.old):
            raise WritebackRefused("the page changed since it was read; it is left for the next run")
        os.unlink(file)
        if change.owned:
            _prune(file.parent, change.root / change.owned)
        return
    data = change.new.encode("utf-8")
    if change.old:
        stage(file, data, _hash(change.old)).commit()
        return
    file.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name[:60]}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temp, file)  # never over a file that appeared meanwhile
    except FileExistsError:
        raise WritebackRefused("a file appeared where the page goes; it is left alone") from None
    finally:
        os.unlink(temp)


def _prune(folder: Path, owned: Path) -> None:
    """Remove the folders left empty in mnemo's own folder (the owned folder too, when empty)."""
    while folder.is_relative_to(owned) and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def undo_change(entry: JournalEntry) -> PageChange:
    """The change that takes one journaled page change back, if the page is still as it was left."""
    file = Path(entry.file)
    root = Path(entry.file[: len(entry.file) - len(entry.path)].rstrip("/"))
    now = read_note(file).decode("utf-8") if file.exists() else ""
    if _hash(now) != entry.after:
        raise WritebackRefused("the page changed since that run")
    owned = entry.path.split("/", 1)[0] if not entry.path.startswith("pages/") else ""
    return PageChange(entry.source, root, entry.path, now, entry.old, owned)
