"""What a write-back would do, in a form a person can review before it runs: how many notes each
property would change, which generated pages would be created, replaced or removed, and a few
notes with the property lines they would get (the dry run's summary; `review_data` as data)."""

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mnemo.writeback.run import NoteChange, WritebackPlan

EXAMPLES = 10
_PAGE_VERBS = ("create", "replace", "remove")


@dataclass(frozen=True)
class Example:
    source: str
    path: str
    lines: tuple[str, ...]  # the note's mnemo property lines after the write


@dataclass
class Review:
    notes: int = 0
    unchanged: int = 0
    opted_out: int = 0
    excluded: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    properties: dict[str, int] = field(default_factory=dict)  # property -> notes where it would change
    removed: dict[str, int] = field(default_factory=dict)  # property -> notes it would leave
    pages: dict[str, list[str]] = field(default_factory=dict)  # create / replace / remove -> page paths
    examples: list[Example] = field(default_factory=list)

    def as_data(self) -> dict[str, Any]:
        return {
            "notes_to_change": self.notes, "unchanged": self.unchanged, "opted_out": self.opted_out,
            "excluded": self.excluded, "properties": self.properties, "properties_removed": self.removed,
            "pages": self.pages, "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "examples": [{"source": e.source, "path": e.path, "lines": list(e.lines)} for e in self.examples],
        }


def property_lines(block: str, key: str) -> dict[str, tuple[str, ...]]:
    """The `key-*` properties in a piece of a note (frontmatter or Logseq page properties):
    property -> its lines (the first line and the indented items under it)."""
    start = re.compile(rf"^(?:- )?({re.escape(key)}-[\w-]+)::?(?:\s|$)")
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in block.splitlines():
        match = start.match(line)
        if match:
            current = found.setdefault(match.group(1), [])
            current.append(line)
        elif current is not None and line[:1] in (" ", "\t") and line.strip():
            current.append(line)
        else:
            current = None
    return {name: tuple(lines) for name, lines in found.items()}


def _changed(change: NoteChange, key: str) -> tuple[dict[str, tuple[str, ...]], set[str]]:
    """The note's properties after the write, and those whose lines differ or are gone."""
    before = property_lines(change.patch.old, key)
    after = property_lines(change.patch.new, key)
    differ = {name for name, lines in after.items() if before.get(name) != lines}
    return after, differ | (set(before) - set(after))


def review(plan: WritebackPlan, key: str, examples: int = EXAMPLES) -> Review:
    """The plan summed up per property and per page verb, with examples spread over the notes in
    path order (the first, then every n-th), so that they come from all over the vault."""
    found = Review(len(plan.changes), plan.unchanged, plan.opted_out, plan.excluded,
                   [(s.path, s.reason) for s in plan.skipped])
    changed: Counter[str] = Counter()
    removed: Counter[str] = Counter()
    ordered = sorted(plan.changes, key=lambda c: (c.source, c.path))
    shown = {len(ordered) * i // examples for i in range(min(examples, len(ordered)))}
    for index, change in enumerate(ordered):
        after, differ = _changed(change, key)
        changed.update(name for name in differ if name in after)
        removed.update(name for name in differ if name not in after)
        if index in shown:
            lines = tuple(line for lines in after.values() for line in lines)
            found.examples.append(Example(change.source, change.path, lines))
    found.properties = dict(sorted(changed.items(), key=lambda kv: (-kv[1], kv[0])))
    found.removed = dict(sorted(removed.items()))
    found.pages = {verb: [] for verb in _PAGE_VERBS}
    for page in plan.page_changes:
        found.pages[page_verb(page.old, page.new)].append(page.path)
    found.skipped += [(path, reason) for p in plan.pages for path, reason in p.skipped]
    return found


def page_verb(old: str, new: str) -> str:
    return "create" if not old else "remove" if not new else "replace"
