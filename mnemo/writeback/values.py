"""What is written into one note: the values (note_values) and the patch that writes them in the
note's own format (note_patch: frontmatter for Obsidian notes and Logseq pages that have it, page
properties for other Logseq pages)."""

import datetime as dt
from dataclasses import dataclass

from mnemo.sources.note_layout import layout
from mnemo.writeback.frontmatter import Patch, Value, frontmatter_patch
from mnemo.writeback.insights import NoteInsight, NoteRef
from mnemo.writeback.link_names import LinkNames, own_links
from mnemo.writeback.logseq import logseq_patch
from mnemo.writeback.mentioned import Place

FORMATS = {"obsidian": "frontmatter", "logseq": "logseq"}


def note_values(
    insight: NoteInsight, links: LinkNames, today: str, notes: dict[str, NoteRef] | None = None,
    community_pages: dict[str, str] | None = None, linked: set[str] | None = None, limit: int = 8,
) -> dict[str, Value]:
    """What is written for one note, in a fixed key order. Only what the note does not already say:
    related notes it does not link, where its subject was mentioned, its community's page,
    a summary of its subject. No internal ids or scores; the day the insights last changed."""
    values: dict[str, Value] = {}
    named = [n for r in insight.related if (n := links.name(r))]
    related = [f"[[{n}]]" for n in named if not _linked(n, linked or set())][:limit]
    if related:
        values["related"] = related
    places = [_place(p, links, notes or {}) for p in insight.mentioned.places]
    if insight.mentioned.count and insight.mentioned.last:
        values["mentioned-in"] = places
        values["mentioned-count"] = insight.mentioned.count
        values["mentioned-last"] = dt.date.fromisoformat(insight.mentioned.last)
    page = (community_pages or {}).get(insight.community_id or "")
    if page:
        values["community"] = f"[[{page}]]"
    if insight.summary:
        values["summary"] = insight.summary
    values["updated"] = dt.date.fromisoformat(today)
    return values


@dataclass(frozen=True)
class ValuesFor:
    """A note's values once its text is read: related notes it already links are left out."""

    insight: NoteInsight
    links: LinkNames
    kind: str
    today: str
    notes: dict[str, NoteRef]
    pages: dict[str, str]
    key: str
    limit: int

    def __call__(self, text: str) -> dict[str, Value]:
        linked = own_links(text, self.kind, self.key)
        return note_values(self.insight, self.links, self.today, self.notes, self.pages, linked, self.limit)


def _linked(name: str, linked: set[str]) -> bool:
    lower = name.lower()
    return lower in linked or lower.rsplit("/", 1)[-1] in linked


def _place(place: Place, links: LinkNames, notes: dict[str, NoteRef]) -> str:
    """A journal day as a link to its page; a chat by its title and day."""
    ref = notes.get(place.note_id or "")
    name = links.name(ref) if ref else None
    return f"[[{name}]]" if name else f"{place.title} ({place.day})"


def logseq_values(values: dict[str, Value], links: LinkNames | None = None) -> dict[str, str]:
    """Page-property values: links as `[[a]], [[b]]`; text in quotes, so Logseq makes no page of it;
    numbers as they are; a day as a link to its journal page when that page exists."""
    flat = {}
    for name, value in values.items():
        if isinstance(value, list):
            items = [v if _is_link(v) else _quoted(v) for v in value]
            flat[name] = (", " if all(_is_link(v) for v in value) else " | ").join(items)
        elif isinstance(value, dt.date):
            day = _logseq_day(value, links)
            flat[name] = day if day.startswith("[[") else f'"{day}"'
        elif isinstance(value, int | float):
            flat[name] = str(value)
        else:
            flat[name] = value if _is_link(value) else _quoted(value)
    return flat


def _is_link(text: str) -> bool:
    return text.startswith("[[") and text.endswith("]]") and text.count("[[") == 1


def _quoted(text: str) -> str:
    return '"' + " ".join(text.replace('"', "'").split()) + '"'


def note_patch(
    text: str, kind: str, key: str, values: dict[str, Value], links: LinkNames | None = None, drop_blank: bool = False,
) -> Patch | None:
    """The patch for one note: frontmatter for Obsidian notes and Logseq pages that use it. `drop_blank`:
    an earlier write-back put a blank line after its Logseq lines (see patch_logseq)."""
    if FORMATS[kind] == "logseq" and layout(text).yaml_start is None:
        return logseq_patch(text, key, logseq_values(values, links), drop_blank=drop_blank)
    if FORMATS[kind] == "logseq":
        values = {name: _logseq_day(v, links) if isinstance(v, dt.date) else v for name, v in values.items()}
    return frontmatter_patch(text, key, values)


def _logseq_day(day: dt.date, links: LinkNames | None) -> str:
    """In a Logseq page's frontmatter, a day is a link to its journal page, or the date as text."""
    return (links.days.link(day.isoformat()) if links else None) or day.isoformat()
