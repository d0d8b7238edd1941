"""What sleep mode changes in recall, read lock-free from its overlay files (never the graph).

- Every recall appends its chunks and grounded entities to the access log (`record_access`),
  so what is recalled is reinforced at the next consolidation.
- Eager recall ranks passages and summaries on one score (`eager_ranked`): a faded passage
  ranks lower but still comes back when it matches, and the coarsest summary that cites some of
  the candidates joins them, scored from the passages it cites; a summary hides nothing. The
  passages a summary cites carry it, so that a tight context (`recall_context`) can let the
  summary stand in for its lower-ranked passages. Eager recall also carries the top-of-mind entities,
  and after its items the community whose notes came back through a theme (`recall.linked`).
- Deliberate recall keeps every detail and adds the summaries of the periods its chunks fall
  in and the summaries of the communities of the entities it grounds.

Nothing changes before sleep mode has run: without its files, results pass through as they are.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from mnemo.recall.linked import theme_context
from mnemo.recall.results import RecalledItem, RecallResult
from mnemo.refs import parse_ref
from mnemo.sleep.salience import record_access
from mnemo.sleep.store import Overlay, SleepFiles
from mnemo.stores.session import SLEEP_VIEW, NamespaceSession, mtime_size

SUMMARY_SHARE = 0.5  # a summary's score: this share of the summed scores of the candidates it cites
FADED_SHARE = 0.8  # a faded passage keeps this share of its score
DELIBERATE_SUMMARIES = 3
DELIBERATE_COMMUNITIES = 2
LOG = logging.getLogger(__name__)
STEPS = ("salience", "summaries", "communities")


def overlay(session: NamespaceSession, step: str) -> Overlay:
    """A sleep step's overlay, parsed once per version of its file in the session (recall runs often)."""
    return SleepFiles(session.root, session).read_overlay(step)


@dataclass
class SleepView:
    """The parts of sleep mode's overlays recall uses."""

    salience: dict[str, dict[str, Any]]
    summaries: list[dict[str, Any]]
    communities: dict[str, dict[str, Any]]
    community_of: dict[str, str]

    @classmethod
    def load(cls, session: NamespaceSession) -> "SleepView":
        """The view, rebuilt only when one of the three overlays it reads was rewritten."""
        folder = SleepFiles(session.root, session).root / "overlay"
        parts = tuple(mtime_size(folder / f"{step}.json") for step in STEPS)
        return session.current(SLEEP_VIEW, parts, lambda: cls._build(session))

    @classmethod
    def _build(cls, session: NamespaceSession) -> "SleepView":
        salience = {r["item_id"]: r for r in overlay(session, "salience").nodes.get("Salience", {}).values()}
        summaries = list(overlay(session, "summaries").nodes.get("Summary", {}).values())
        found = overlay(session, "communities")
        community_of = {
            r["src"]: r["dst"] for r in found.edges.get(("IN_COMMUNITY", "Entity", "Community"), {}).values()
        }
        return cls(salience, summaries, found.nodes.get("Community", {}), community_of)

    def top_of_mind(self) -> list[str]:
        return list(self._top_of_mind)

    @cached_property
    def _top_of_mind(self) -> list[str]:
        rows = sorted(
            (r for r in self.salience.values() if r.get("top_of_mind")), key=lambda r: (-r["score"], r["item_id"])
        )
        return [r["item_id"] for r in rows]

    @cached_property
    def cited_by(self) -> dict[str, dict[str, Any]]:
        """Chunk id -> the coarsest eager summary that cites it (month over week over day)."""
        found: dict[str, dict[str, Any]] = {}
        for summary in sorted(self.summaries, key=lambda s: ("month", "week", "day").index(s["level"]), reverse=True):
            if summary["eager"]:
                found.update(dict.fromkeys(summary["sources"], summary))
        return found

    def summary(self, summary_id: str) -> dict[str, Any]:
        return self._by_id[summary_id]

    @cached_property
    def _by_id(self) -> dict[str, dict[str, Any]]:
        return {s["id"]: s for s in self.summaries}

    def covering(self, day: str) -> list[dict[str, Any]]:
        """Every summary (day, week, month) whose period holds the day, coarsest first."""
        hits = [s for s in self.summaries if s["period_start"] <= day <= s["period_end"]]
        return sorted(hits, key=lambda s: ("month", "week", "day").index(s["level"]))


def after_recall(
    session: NamespaceSession, result: RecallResult, mode: str, at: datetime | None = None
) -> RecallResult:
    """Log the recall as accesses, then add what sleep mode's state offers: top of mind (eager),
    period and community summaries (deliberate)."""
    log_recall(session.root, result, at)
    view = SleepView.load(session)
    if not (view.salience or view.summaries or view.communities):
        return result
    if mode == "eager":  # after the k items, the community a theme's notes came from
        extra = theme_context(result.items, view.communities)
        return replace(result, top_of_mind=view.top_of_mind(), items=result.items + extra)
    entities = [parse_ref(ref).entity_id for ref in result.grounding]
    return replace(result, items=result.items + _deliberate_extras(view, result.items, entities))


def log_recall(root: Path, result: RecallResult, at: datetime | None = None) -> None:
    """The recalled chunks and grounded entities, appended to the access log."""
    entities = [parse_ref(ref).entity_id for ref in result.grounding]
    try:
        record_access(root, [i.id for i in result.items if i.kind == "chunk"] + entities, "recall", at)
    except OSError as error:  # a read-only or full disk must not cost the answer
        LOG.warning("recall not logged as an access in %s: %s", root, error)


def eager_ranked(view: SleepView, items: list[RecalledItem]) -> list[RecalledItem]:
    """Eager candidates re-ranked on one score with what sleep mode adds: a faded passage keeps
    FADED_SHARE of its score (lower, still there), and the coarsest summary citing candidates joins
    with SUMMARY_SHARE of their summed scores. Each passage a summary cites carries it
    (`summarized_by`) so that a tight context can let the summary stand in for it."""
    out: list[RecalledItem] = []
    for item in items:
        if view.salience.get(item.id, {}).get("faded"):
            item = replace(item, score=round(item.score * FADED_SHARE, 6), reasons=[*item.reasons, "faded"])
        summary = view.cited_by.get(item.id)
        if summary is not None:
            item = replace(item, metadata={**item.metadata, "summarized_by": _brief(summary)})
        out.append(item)
    out += _summary_items(view, out)
    return cited_first(sorted(out, key=lambda i: -i.score))


def cited_first(items: list[RecalledItem]) -> list[RecalledItem]:
    """The items in order, except that the candidates a summary of matches cites (`matched`) come
    up to just before it: a summary ranks on what it cites, so what it cites ranks with it."""
    by_id = {i.id: i for i in items if i.kind == "chunk"}
    out: list[RecalledItem] = []
    placed: set[str] = set()
    for item in items:
        if item.id in placed:
            continue
        for cited in item.metadata.get("matched", []) if item.kind == "summary" else []:
            if cited in by_id and cited not in placed:
                out.append(by_id[cited])
                placed.add(cited)
        out.append(item)
        placed.add(item.id)
    return out


def _summary_items(view: SleepView, items: list[RecalledItem]) -> list[RecalledItem]:
    cited: dict[str, list[RecalledItem]] = {}
    for item in items:
        summary = view.cited_by.get(item.id)
        if summary is not None:
            cited.setdefault(summary["id"], []).append(item)
    return [
        summary_item(
            view.summary(sid),
            round(SUMMARY_SHARE * sum(i.score for i in matched), 6),
            ["summary of matches"],
            [i.id for i in matched],
        )
        for sid, matched in cited.items()
    ]


def with_source_paths(items: list[RecalledItem], paths_of: Callable[[list[str]], dict[str, str]]) -> list[RecalledItem]:
    """Summary items with the notes of their sources (`source_paths`) and, as `path`, the note of
    their best-matching source (else their first); `paths_of` (chunk ids -> their paths) is asked
    once, only when summaries are returned."""
    summaries = [i for i in items if i.kind == "summary"]
    if not summaries:
        return items
    paths = paths_of(sorted({c for i in summaries for c in i.metadata["sources"]}))
    for item in summaries:
        notes = list(dict.fromkeys(paths[c] for c in item.metadata["sources"] if c in paths))
        item.metadata["source_paths"] = notes
        item.path = next((paths[c] for c in item.metadata["matched"] if c in paths), notes[0] if notes else "")
    return items


def _deliberate_extras(view: SleepView, items: list[RecalledItem], entities: list[str]) -> list[RecalledItem]:
    extras: dict[str, RecalledItem] = {}
    days = sorted({i.timestamp[:10] for i in items if i.kind == "chunk" and i.timestamp}, reverse=True)
    for day in days:
        for summary in view.covering(day):
            if len(extras) < DELIBERATE_SUMMARIES and summary["id"] not in extras:
                extras[summary["id"]] = summary_item(summary, 0.0, ["period summary"], [])
    communities = list(dict.fromkeys(view.community_of[e] for e in entities if e in view.community_of))
    for cid in communities[:DELIBERATE_COMMUNITIES]:
        row = view.communities[cid]
        extras[cid] = RecalledItem(
            cid,
            "community",
            row["summary"],
            0.0,
            title=row["title"],
            reasons=["community summary"],
            metadata={"members": row["member_count"], "sources": row["sources"]},
        )
    return list(extras.values())


def _brief(summary: dict[str, Any]) -> dict[str, Any]:
    return {"id": summary["id"], "level": summary["level"], "period": summary["period"], "text": summary["text"]}


def summary_item(summary: dict[str, Any], score: float, reasons: list[str], matched: list[str]) -> RecalledItem:
    """A summary as a recall item: the period it covers, the passages it was made from (`sources`;
    `with_source_paths` adds their notes), and which of this recall's candidates it cites (`matched`)."""
    return RecalledItem(
        summary["id"],
        "summary",
        summary["text"],
        score,
        title=f"{summary['level']} {summary['period']}",
        timestamp=summary["period_start"],
        reasons=reasons,
        metadata={
            "level": summary["level"],
            "period": summary["period"],
            "covers": {"start": summary["period_start"], "end": summary["period_end"]},
            "sources": list(summary["sources"]),
            "source_paths": [],
            "matched": matched,
        },
    )


def record_lookup(root: Path, entity_id: str) -> None:
    """An entity looked up by id: an access, like a recall."""
    record_access(root, [entity_id], "lookup")
