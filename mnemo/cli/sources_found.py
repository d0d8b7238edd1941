"""What `mnemo init` finds at a path: which kind of source it is, and what the scanner reads in it."""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from mnemo.config import SourceConfig
from mnemo.errors import SourceError
from mnemo.ingest.languages import LanguageProfile, language_profile
from mnemo.sources.chats import MAX_EXPORT_BYTES, load_json, zip_members
from mnemo.sources.inbox import json_format
from mnemo.sources.scan import ScanResult, scan_source
from mnemo.sources.walk import Problem

# How each document kind is named when counted.
KIND_NAMES = {"note": ("note", "notes"), "journal": ("journal", "journals"), "chat": ("conversation", "conversations")}
EXPORT_KINDS = ("chatgpt", "claude")
INIT_KINDS = ("obsidian", "logseq", "chatgpt", "claude")


@dataclass(frozen=True)
class Survey:
    """One source as the scanner reads it: documents counted by kind, and the files it skipped."""

    source: SourceConfig
    counts: dict[str, int]
    skipped: list[Problem]
    languages: LanguageProfile

    @property
    def documents(self) -> int:
        return sum(self.counts.values())

    def describe(self) -> str:
        counted = sorted(self.counts.items(), key=_order)
        empty = "empty, ready for what you drop in" if self.source.kind == "inbox" else "nothing readable"
        found = ", ".join(f"{n} {KIND_NAMES.get(k, (k, k))[n != 1]}" for k, n in counted) or empty
        skipped = f" ({len(self.skipped)} files skipped, e.g. {self.skipped[0].path}: {self.skipped[0].reason})" \
            if self.skipped else ""
        return f"{self.source.kind} {self.source.path}: {found}{skipped}"


def _order(item: tuple[str, int]) -> int:
    return list(KIND_NAMES).index(item[0]) if item[0] in KIND_NAMES else len(KIND_NAMES)


def detect_kind(path: Path) -> str | None:
    """`obsidian` for a folder with `.obsidian/`, `logseq` for one with `logseq/config.edn`,
    `chatgpt`/`claude` for an export (a JSON or zip file, or a folder holding `conversations.json`)."""
    if path.is_dir():
        if (path / ".obsidian").is_dir():
            return "obsidian"
        if (path / "logseq" / "config.edn").is_file():
            return "logseq"
        export = path / "conversations.json"
        return _export_kind(export) if export.is_file() else None
    if path.is_file() and path.suffix.lower() in (".json", ".zip"):
        return _export_kind(path)
    return None


def _export_kind(path: Path) -> str | None:
    """`chatgpt` or `claude` from the export's JSON shape (None for anything else)."""
    if path.stat().st_size > MAX_EXPORT_BYTES:
        return None
    data = path.read_bytes()
    try:
        if path.suffix.lower() == ".zip":
            members = zip_members(data, path.name)
            data = members[0][1] if members else b""
        found = json_format(load_json(data, path.name))
    except SourceError:
        return None
    return found if found in EXPORT_KINDS else None


def survey(namespace: str, source: SourceConfig) -> Survey:
    """Scan the source as an ingest run would (nothing is stored) and count what it reads."""
    result = ScanResult()
    scan_source(namespace, source, {}, {}, result)
    counts: Counter[str] = Counter(d.kind for d in result.documents)
    languages = language_profile(f"{d.title}\n{d.body}" for d in result.documents)
    return Survey(source, dict(counts), [p for p in result.problems if p.fatal], languages)
