"""The write-back journal: an append-only JSON-lines file under the namespace's data dir.

Each line records one note written by one run: where the replaced text starts, the text
that was there before (the old mnemo block, or nothing) and the text written, with the
SHA-256 of the whole file before and after. That is enough to restore the previous bytes
exactly. Lines are written and fsynced before their notes are renamed into place.
"""

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from mnemo.errors import MnemoError


@dataclass(frozen=True)
class JournalEntry:
    run: str
    op: str
    at: str
    source: str
    path: str
    file: str
    start: int
    old: str
    new: str
    before: str
    after: str


@dataclass(frozen=True)
class RunSummary:
    run: str
    op: str
    at: str
    notes: int


class Journal:
    """Append-only record of every write-back and undo of one namespace."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def append_many(self, entries: list[JournalEntry]) -> None:
        """Append entries and fsync once: they are durable before any of their notes is renamed."""
        if not entries:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(asdict(e), ensure_ascii=False) + "\n" for e in entries)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(lines)
            handle.flush()
            os.fsync(handle.fileno())

    def entries(self) -> list[JournalEntry]:
        """Every complete entry; a last line cut short by a crash is ignored."""
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").split("\n")
        entries = []
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entries.append(JournalEntry(**json.loads(line)))
            except (ValueError, TypeError) as exc:
                if number == len(lines):
                    continue
                raise MnemoError(f"{self.path}: line {number} is not a journal entry ({exc})") from None
        return entries

    def runs(self) -> list[RunSummary]:
        """The runs in the journal, oldest first."""
        found: dict[str, RunSummary] = {}
        for entry in self.entries():
            seen = found.get(entry.run)
            found[entry.run] = RunSummary(
                entry.run, entry.op, seen.at if seen else entry.at, (seen.notes if seen else 0) + 1
            )
        return list(found.values())

    def added(self) -> dict[tuple[str, str], JournalEntry]:
        """For each (source, path), the last write that added mnemo's lines to the note (nothing replaced)."""
        return {(e.source, e.path): e for e in self.entries() if e.op == "write" and not e.old}

    def entries_of(self, run: str) -> tuple[str, list[JournalEntry]]:
        """The entries of one run, named by its id or an unambiguous prefix of it."""
        runs = {r.run for r in self.runs()}
        matches = [r for r in runs if r == run] or [r for r in runs if r.startswith(run)]
        if not run or not matches:
            raise MnemoError(f"no write-back run {run!r} in {self.path}")
        if len(matches) > 1:
            raise MnemoError(f"run id {run!r} is ambiguous: {', '.join(sorted(matches))}")
        return matches[0], [e for e in self.entries() if e.run == matches[0]]


def added_blank_line(entry: JournalEntry | None) -> bool:
    """Whether that write put a blank line after the lines it added to a Logseq page without
    properties (earlier versions did; the line is taken out again with mnemo's lines)."""
    if entry is None or entry.new.lstrip("\ufeff").startswith("---"):
        return False
    return entry.new.endswith(("\n\n", "\r\n\r\n"))
