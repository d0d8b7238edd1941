"""Progressive summaries of episodic memory: day, then week, then month.

A note is on the day its owner wrote it (`mnemo.note_dates`): a journal page on its day, any other
note's passages on the day each was written (the note's date, or the dated item a passage is); an
undated note is on no day. A conversation's turns are on the days they were said. Every closed day
with content gets a day summary. Weeks that ended more than
`week_after_days` ago get a week summary made from their days, months that ended more
than `month_after_days` ago a month summary. The coarsest summary of a period is `eager`
(eager recall ranks it beside the passages it cites); the finer ones are for deliberate recall.
A summary's `sources` are the passages its sentences were taken from, and it is re-made when
the digest of what its period holds changed (a passage added, changed or removed).

With a writer (an LLM), week and month summaries are abstractive, citing the passages they rest
on, and the digest includes the model. When the model fails (malformed, empty, truncated or slow
answer; the server gone), the last run's summary of that period stands unchanged (`kept`) and the
next run asks again; a period never summarized before gets the extractive summary meanwhile.
"""

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from mnemo.documents import content_hash
from mnemo.facts import edge_columns
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.store import Overlay, SleepFiles
from mnemo.sleep.text import Sentence, brief, sentences, summarize
from mnemo.sleep.view import FactsView

LEVELS = ("day", "week", "month")
_DAY = re.compile(r"\d{4}-\d\d-\d\d")


@dataclass
class SummaryStats:
    made: int = 0
    reused: int = 0
    kept: int = 0  # periods the model failed to summarize again: the last run's summary stands
    written: int = 0  # abstractive (week and month, with a writer)
    flagged: int = 0  # written sentences naming an entity their sources do not
    days: int = 0
    weeks: int = 0
    months: int = 0


def day_chunks(view: FactsView) -> dict[str, list[str]]:
    """Day (YYYY-MM-DD) -> chunk ids of the notes placed on that day, of the dated passages of
    other notes and of the episode turns said on it."""
    edges, chunks = view.facts.edges, view.chunks
    episodes: dict[str, list[str]] = defaultdict(list)
    for chunk, episode in zip(*edge_columns(edges.get(("IN_EPISODE", "Chunk", "Episode"), {}), "src", "dst")):
        episodes[episode].append(chunk)
    found: dict[str, list[str]] = defaultdict(list)
    for note, day in zip(*edge_columns(edges.get(("ON_DAY", "Note", "Day"), {}), "src", "dst")):
        found[day].extend(view.note_chunks.get(note, []))
    for day, chunk_id in dated_passages(view):
        found[day].append(chunk_id)
    for episode, day in zip(*edge_columns(edges.get(("ON_DAY", "Episode", "Day"), {}), "src", "dst")):
        found[day].extend(
            c for c in episodes.get(episode, []) if c in chunks and (chunks[c]["timestamp"] or day).startswith(day)
        )
    return {day: sorted(set(ids)) for day, ids in found.items() if ids}


def dated_passages(view: FactsView) -> list[tuple[str, str]]:
    """(day, chunk id) for each passage of a note (not a conversation) that carries the day it was
    written: its note's own date or the dated item it is."""
    found = []
    for note, chunk_ids in view.note_chunks.items():
        if view.notes.get(note, {}).get("kind") == "chat":
            continue
        for chunk_id in chunk_ids:
            day = str(view.chunks[chunk_id]["timestamp"] or "")[:10] if chunk_id in view.chunks else ""
            if _DAY.fullmatch(day):
                found.append((day, chunk_id))
    return found


def _week(day: date) -> tuple[str, date, date]:
    year, week, _ = day.isocalendar()
    start = day - timedelta(days=day.weekday())
    return f"{year}-W{week:02d}", start, start + timedelta(days=6)


def _month(day: date) -> tuple[str, date, date]:
    start = day.replace(day=1)
    end = (start + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    return f"{day:%Y-%m}", start, end


def build_summaries(
    view: FactsView, previous: Overlay, today: date, week_after: int, month_after: int,
    writer: SleepWriter | None = None,
) -> tuple[Overlay, SummaryStats]:
    """The Summary overlay for every closed period with content."""
    overlay, stats = Overlay(previous), SummaryStats()
    flagged_before = len(writer.stats.flagged) if writer else 0
    author = _Author(writer, [row["name"] for row in view.entities.values()] if writer else [])
    passages = _Passages(view)
    old = previous.nodes.get("Summary", {})
    chunks_of = {d: c for d, c in day_chunks(view).items() if date.fromisoformat(d) < today}
    groups: dict[str, dict[str, tuple[date, date, list[str]]]] = {"week": {}, "month": {}}
    spans: dict[str, tuple[str, date, date]] = {}  # level -> the period of the day before (days come in order)
    for day in sorted(chunks_of):
        when = date.fromisoformat(day)
        for level, span_of in (("week", _week), ("month", _month)):
            span = spans.get(level)
            if span is None or not span[1] <= when <= span[2]:
                span = spans[level] = span_of(when)
            period, start, end = span
            horizon = week_after if level == "week" else month_after
            if end < today - timedelta(days=horizon):
                groups[level].setdefault(period, (start, end, []))[2].append(day)
    covered = {d for _, _, days in groups["week"].values() for d in days}
    covered_weeks = {d for _, _, days in groups["month"].values() for d in days}
    links: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)  # (table, to table) -> ends
    for day, chunk_ids in sorted(chunks_of.items()):
        row = _summary_row(
            view,
            old,
            "day",
            day,
            day,
            day,
            chunk_ids,
            eager=day not in covered and day not in covered_weeks,
            stats=stats,
            passages=passages,
        )
        _add(overlay, old, row)
        links[("SUMMARIZES", "Day")].append((row["id"], day))
        _cite(links, view, row)
    for level in ("week", "month"):
        for period, (start, end, days) in sorted(groups[level].items()):
            chunk_ids = sorted({c for d in days for c in chunks_of[d]})
            eager = level == "month" or not all(d in covered_weeks for d in days)
            row = _summary_row(view, old, level, period, start.isoformat(), end.isoformat(), chunk_ids, eager, stats,
                               author, passages)
            _add(overlay, old, row)
            links[("SUMMARIZES", "Summary")].extend((row["id"], f"summary_day_{d}") for d in days)
            _cite(links, view, row)
    for (table, to_table), ends in links.items():
        overlay.link_all(table, "Summary", to_table, ends)
    stats.days, stats.weeks, stats.months = len(chunks_of), len(groups["week"]), len(groups["month"])
    stats.flagged = len(writer.stats.flagged) - flagged_before if writer else 0
    return overlay, stats


@dataclass
class _Author:
    """Who writes week and month summaries: the LLM `writer` (checked against entity `names`) or nobody."""

    writer: SleepWriter | None
    names: list[str]

    def digest(self, level: str, digest: str) -> str:
        return digest if self.writer is None or level == "day" else content_hash(digest, self.writer.model)


@dataclass
class _Passages:
    """The weighted whole sentences of the view's passages, each passage split once per build (a
    passage is in a day's, a week's and a month's summary)."""

    view: FactsView
    split: dict[str, list[Sentence]] = field(default_factory=dict)

    def pool(self, chunk_ids: list[str]) -> list[Sentence]:
        found: list[Sentence] = []
        for chunk_id in chunk_ids:
            if chunk_id not in self.split:
                weight = 1.0 + len(self.view.chunk_entities.get(chunk_id, ()))
                text = self.view.chunks[chunk_id]["text"]
                self.split[chunk_id] = [Sentence(s.text, chunk_id, weight) for s in sentences(text, chunk_id)]
            found.extend(self.split[chunk_id])
        return found


def _summary_row(
    view: FactsView, old: dict[str, dict[str, Any]], level: str, period: str, start: str, end: str,
    chunk_ids: list[str], eager: bool, stats: SummaryStats, author: _Author | None = None,
    passages: _Passages | None = None,
) -> dict[str, Any]:
    sid = f"summary_{level}_{period}"
    author = author or _Author(None, [])
    base = content_hash(level, *(view.chunks[c]["h"] for c in chunk_ids))
    digest = author.digest(level, base)
    previous = old.get(sid)
    if previous and previous["digest"] == digest:
        stats.reused += 1
        return previous if previous["eager"] == eager else {**previous, "eager": eager}
    pool = (passages or _Passages(view)).pool(chunk_ids)
    row = {"id": sid, "level": level, "period": period, "period_start": start, "period_end": end, "eager": eager}
    if digest != base and author.writer is not None:
        written = author.writer.summary(f"the {level} {period}", pool, author.names)
        if written is not None:
            stats.made, stats.written = stats.made + 1, stats.written + 1
            return {**row, "text": written[0], "sources": written[1], "digest": digest}
        if previous:  # the model failed: the last run's summary stands, asked again next run
            stats.kept += 1
            return previous if previous["eager"] == eager else {**previous, "eager": eager}
    stats.made += 1
    text, cited = _extractive(view, level, chunk_ids, pool)
    return {**row, "text": text, "sources": cited, "digest": base}


def _extractive(view: FactsView, level: str, chunk_ids: list[str], pool: list[Sentence]) -> tuple[str, list[str]]:
    k = {"day": 2, "week": 4, "month": 6}[level]
    text, cited = summarize(pool, k)
    if not text:  # no whole sentence of four words: the passages' own words, without markup
        plain = [(c, brief(view.chunks[c]["text"])) for c in chunk_ids]
        plain = [(c, t) for c, t in plain if t][:k]
        text, cited = " ".join(t for _, t in plain), [c for c, _ in plain]
    return text, cited


def _add(overlay: Overlay, old: dict[str, dict[str, Any]], row: dict[str, Any]) -> None:
    """Add the row; last run's row stays as it was stored (hash included)."""
    if row is old.get(str(row["id"])):
        overlay.keep_node("Summary", row)
    else:
        overlay.add_node("Summary", row)


def _cite(links: dict[tuple[str, str], list[tuple[str, str]]], view: FactsView, row: dict[str, Any]) -> None:
    """The summary's edges to the chunks it cites and the entities they mention."""
    sid, sources = str(row["id"]), list(row["sources"])
    links[("CITES", "Chunk")].extend((sid, chunk_id) for chunk_id in sources)
    links[("SUMMARY_MENTIONS", "Entity")].extend(
        (sid, eid) for eid in sorted({e for c in sources for e in view.chunk_entities.get(c, ())})
    )


def read_summaries(namespace_root: Path, eager_only: bool = False) -> list[dict[str, Any]]:
    """The summaries, oldest period first, lock-free; `eager_only` keeps the coarsest per period
    (what eager recall should prefer), else every level (deliberate recall)."""
    rows = SleepFiles(namespace_root).read_overlay("summaries").nodes.get("Summary", {}).values()
    return sorted(
        (r for r in rows if r["eager"] or not eager_only), key=lambda r: (r["period_start"], LEVELS.index(r["level"]))
    )
