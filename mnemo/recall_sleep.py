"""What sleep mode changes in recall, read lock-free from its overlay files (never the graph).

- Every recall appends its chunks and grounded entities to the access log (`record_access`),
  so what is recalled is reinforced at the next consolidation.
- Eager recall leaves out `faded` items, answers old periods with their coarsest summary (a
  Week or Month summary replaces the journal and chat chunks of the period it covers, one item
  per period) and carries the top-of-mind entities.
- Deliberate recall keeps every detail and adds the summaries of the periods its chunks fall
  in and the summaries of the communities of the entities it grounds.

Nothing changes before sleep mode has run: without its files, results pass through as they are.
"""

import logging
import os
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from mnemo.memories import parse_ref
from mnemo.recall import RecalledItem, RecallResult
from mnemo.recall_search import rows_by_id
from mnemo.sleep.salience import record_access
from mnemo.sleep.store import Overlay, SleepFiles

EPISODIC = ("journal", "chat")
DELIBERATE_SUMMARIES = 3
DELIBERATE_COMMUNITIES = 2
LOG = logging.getLogger(__name__)
_CACHE: dict[Path, tuple[tuple[int, int], Overlay]] = {}
_VIEWS: dict[Path, tuple[tuple[tuple[int, int] | None, ...], "SleepView"]] = {}


def overlay(root: Path, step: str) -> Overlay:
    """A sleep step's overlay, parsed once per version of its file (recall runs often)."""
    sleep = SleepFiles(root)
    path = sleep.root / "overlay" / f"{step}.json"
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        _CACHE.pop(path, None)
        return Overlay()
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _CACHE.get(path)
    if cached is None or cached[0] != key:
        cached = (key, sleep.read_overlay(step))
        _CACHE[path] = cached
    return cached[1]


def _version(root: Path, step: str) -> tuple[int, int] | None:
    """The (mtime, size) of the overlay file as last parsed, after making sure it is current."""
    overlay(root, step)
    cached = _CACHE.get(SleepFiles(root).root / "overlay" / f"{step}.json")
    return cached[0] if cached else None


@dataclass
class SleepView:
    """The parts of sleep mode's overlays recall uses."""

    salience: dict[str, dict[str, Any]]
    summaries: list[dict[str, Any]]
    communities: dict[str, dict[str, Any]]
    community_of: dict[str, str]

    @classmethod
    def load(cls, root: Path) -> "SleepView":
        """The view, rebuilt only when one of the three overlays it reads was rewritten."""
        parts = tuple(_version(root, step) for step in ("salience", "summaries", "communities"))
        cached = _VIEWS.get(root)
        if cached is None or cached[0] != parts:
            cached = (parts, cls._build(root))
            _VIEWS[root] = cached
        return cached[1]

    @classmethod
    def _build(cls, root: Path) -> "SleepView":
        salience = {r["item_id"]: r for r in overlay(root, "salience").nodes.get("Salience", {}).values()}
        summaries = list(overlay(root, "summaries").nodes.get("Summary", {}).values())
        found = overlay(root, "communities")
        community_of = {r["src"]: r["dst"] for r in found.edges.get(("IN_COMMUNITY", "Entity", "Community"), {}).values()}
        return cls(salience, summaries, found.nodes.get("Community", {}), community_of)

    def top_of_mind(self) -> list[str]:
        return list(self._top_of_mind)

    @cached_property
    def _top_of_mind(self) -> list[str]:
        rows = sorted((r for r in self.salience.values() if r.get("top_of_mind")), key=lambda r: (-r["score"], r["item_id"]))
        return [r["item_id"] for r in rows]

    def coarsest(self, day: str) -> dict[str, Any] | None:
        """The eager Week or Month summary covering a day, if the day's period is old enough to have one."""
        hits = [s for s in self.summaries if s["eager"] and s["level"] != "day" and s["period_start"] <= day <= s["period_end"]]
        return max(hits, key=lambda s: s["level"] == "month", default=None)

    def covering(self, day: str) -> list[dict[str, Any]]:
        """Every summary (day, week, month) whose period holds the day, coarsest first."""
        hits = [s for s in self.summaries if s["period_start"] <= day <= s["period_end"]]
        return sorted(hits, key=lambda s: ("month", "week", "day").index(s["level"]))


def after_recall(root: Path, table: Any, result: RecallResult, mode: str, at: datetime | None = None,
                 kinds: dict[str, str] | None = None) -> RecallResult:
    """Log the recall as accesses, then shape the result as sleep mode's state says (see the module).
    `kinds`: the chunk kind of items the caller already knows (the others are read from `table`)."""
    entities = [parse_ref(ref).entity_id for ref in result.grounding]
    try:
        record_access(root, [i.id for i in result.items if i.kind == "chunk"] + entities, "recall", at)
    except OSError as error:  # a read-only or full disk must not cost the answer
        LOG.warning("recall not logged as an access in %s: %s", root, error)
    view = SleepView.load(root)
    if not (view.salience or view.summaries or view.communities):
        return result
    if mode == "eager":
        items = _eager_items(view, table, result.items, kinds or {})
        return replace(result, items=items, top_of_mind=view.top_of_mind())
    return replace(result, items=result.items + _deliberate_extras(view, result.items, entities))


def _eager_items(view: SleepView, table: Any, items: list[RecalledItem], known: dict[str, str]) -> list[RecalledItem]:
    missing = [i.id for i in items if i.kind == "chunk" and i.id not in known]
    kinds = {i: r["kind"] for i, r in rows_by_id(table, missing).items()} if table is not None and missing else {}
    kinds.update(known)
    out: list[RecalledItem] = []
    by_summary: dict[str, RecalledItem] = {}
    for item in items:
        if view.salience.get(item.id, {}).get("faded"):
            continue
        summary = view.coarsest(item.timestamp[:10]) if kinds.get(item.id) in EPISODIC and item.timestamp else None
        if summary is None:
            out.append(item)
        elif summary["id"] in by_summary:
            by_summary[summary["id"]].metadata["replaces"].append(item.id)
        else:
            by_summary[summary["id"]] = _summary_item(summary, item.score, [*item.reasons, "coarsest summary"], [item.id])
            out.append(by_summary[summary["id"]])
    return out


def _deliberate_extras(view: SleepView, items: list[RecalledItem], entities: list[str]) -> list[RecalledItem]:
    extras: dict[str, RecalledItem] = {}
    days = sorted({i.timestamp[:10] for i in items if i.kind == "chunk" and i.timestamp}, reverse=True)
    for day in days:
        for summary in view.covering(day):
            if len(extras) < DELIBERATE_SUMMARIES and summary["id"] not in extras:
                extras[summary["id"]] = _summary_item(summary, 0.0, ["period summary"], [])
    communities = list(dict.fromkeys(view.community_of[e] for e in entities if e in view.community_of))
    for cid in communities[:DELIBERATE_COMMUNITIES]:
        row = view.communities[cid]
        extras[cid] = RecalledItem(cid, "community", row["summary"], 0.0, title=row["title"], reasons=["community summary"],
                                   metadata={"members": row["member_count"], "sources": row["sources"]})
    return list(extras.values())


def _summary_item(summary: dict[str, Any], score: float, reasons: list[str], replaces: list[str]) -> RecalledItem:
    return RecalledItem(summary["id"], "summary", summary["text"], score, title=f"{summary['level']} {summary['period']}",
                        timestamp=summary["period_start"], reasons=reasons,
                        metadata={"level": summary["level"], "period": summary["period"], "sources": summary["sources"],
                                  "replaces": replaces})


def record_lookup(root: Path, entity_id: str) -> None:
    """An entity looked up by id: an access, like a recall."""
    record_access(root, [entity_id], "lookup")
