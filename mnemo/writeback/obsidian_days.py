"""Links to Obsidian daily notes: a day's note found by the vault's Daily notes settings
(sources/daily_notes.py); a link is written only when that note exists."""

import datetime as dt
from pathlib import Path

from mnemo.sources.daily_notes import daily_notes


class ObsidianDays:
    """The vault's daily notes by day, linked the way the vault's other notes are (by unique name)."""

    def __init__(self, root: Path, stems: dict[str, int]) -> None:
        self.root = root
        self.stems = stems
        self.settings = daily_notes(root)

    def link(self, day: str) -> str | None:
        """`[[<daily note>]]` when the day's daily note exists, else None."""
        rel = self.settings.path(dt.date.fromisoformat(day))
        if not (self.root / rel).is_file():
            return None
        stem = Path(rel).stem
        return f"[[{stem if self.stems.get(stem.lower(), 0) <= 1 else rel.removesuffix('.md')}]]"
