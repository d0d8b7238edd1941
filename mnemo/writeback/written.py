"""What was written in a month: the notes created or edited in it, by the note's own date (its
journal day, its frontmatter `created`/`date`, or an `updated`/`modified` property of its own; the
file's time says nothing, as a copy or a sync resets it), each with its first sentence."""

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mnemo.sleep.text import first_sentence
from mnemo.stores.graph_reader import GraphReader

_EDITED_KEYS = ("updated", "modified", "last modified", "date modified", "edited", "last edited")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
FIRST_CHUNKS = 3  # where a note's first sentence is looked for
LinkOf = Callable[[str], str | None]  # note id -> its link name, or None


@dataclass(frozen=True)
class Written:
    day: str
    note: str  # note id
    how: str  # "created" or "edited"
    sentence: str | None


def edited_day(properties: str, key: str) -> str | None:
    """The day a note says it was last edited, from its own properties (never mnemo's `key-*` ones)."""
    try:
        found: Any = json.loads(properties or "{}")
    except json.JSONDecodeError:
        return None
    if not isinstance(found, dict):
        return None
    by_key = {re.sub(r"[\s_-]+", " ", str(k).strip().lower()): v for k, v in found.items()
              if not str(k).lower().startswith(key.lower())}
    for name in _EDITED_KEYS:
        value = str(by_key.get(name) or "")
        if _DAY.match(value):
            return value[:10]
    return None


def _dates(graph: GraphReader, key: str) -> dict[str, list[tuple[str, str]]]:
    """note id -> (day, how) for each date the note gives itself."""
    dates: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for nid, day, created, properties in graph.note_dates():
        made = day or created or ""
        if _DAY.match(made):
            dates[nid].append((made[:10], "created"))
        edited = edited_day(properties, key)
        if edited and edited[:7] != made[:7]:
            dates[nid].append((edited, "edited"))
    return dates


def first_sentences(graph: GraphReader, ids: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for nid, _, text in graph.first_passages(ids, FIRST_CHUNKS):
        if nid not in found and (sentence := first_sentence(text or "")):
            found[nid] = sentence
    return found


def read_written(graph: GraphReader, key: str) -> dict[str, list[Written]]:
    """Month (YYYY-MM) -> the notes created or edited in it, in order of day."""
    dates = _dates(graph, key)
    sentences = first_sentences(graph, sorted(dates)) if dates else {}
    months: dict[str, list[Written]] = defaultdict(list)
    for nid, days in dates.items():
        for day, how in days:
            months[day[:7]].append(Written(day, nid, how, sentences.get(nid)))
    return {month: sorted(notes, key=lambda w: (w.day, w.note)) for month, notes in months.items()}


def written_lines(written: list[Written], link: LinkOf) -> tuple[str, ...]:
    """One line per note, in order of day and name: its link, the day (and whether it was an edit),
    its first sentence."""
    named = [(item, name) for item in written if (name := link(item.note))]
    lines = []
    for item, name in sorted(named, key=lambda pair: (pair[0].day, pair[1].lower(), pair[1], pair[0].how)):
        when = item.day if item.how == "created" else f"edited {item.day}"
        lines.append(f"[[{name}]] ({when})" + (f": {item.sentence}" if item.sentence else ""))
    return tuple(lines)
