"""Integrity checks of sleep mode's results (used by the asset checks and tests)."""

import json
from collections.abc import Callable
from datetime import date

from mnemo.pipeline import graph_facts
from mnemo.sleep.merges import MergeLog
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import day_chunks
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles


def cross_type_merges(files: NamespaceFiles) -> list[str]:
    """Active merges whose two entities have different types in the extraction facts."""
    active = MergeLog(SleepFiles(files.root)).active()
    entities = graph_facts(files).nodes["Entity"] if active else {}
    bad = []
    for merge in active:
        a, b = entities.get(merge.canonical), entities.get(merge.merged)
        if a and b and a["kind"] != b["kind"]:
            bad.append(f"{merge.merge_id}: {merge.merged} ({b['kind']}) into {merge.canonical} ({a['kind']})")
    return bad


def community_problems(files: NamespaceFiles, view: Callable[[], FactsView]) -> list[str]:
    """Communities with fewer than 2 members, no summary, or no citation although members have chunks
    (`view` gives the merged facts' view, only needed when a summary cites nothing)."""
    problems = []
    for row in SleepFiles(files.root).read_overlay("communities").nodes.get("Community", {}).values():
        members = json.loads(row["members"])
        if len(members) < 2:
            problems.append(f"{row['id']}: {len(members)} member")
        if not row["summary"]:
            problems.append(f"{row['id']}: no summary")
        if not row["sources"] and any(view().entity_chunks(e) for e in members):
            problems.append(f"{row['id']}: summary cites no chunk")
    return problems


def salience_out_of_range(files: NamespaceFiles) -> list[str]:
    rows = SleepFiles(files.root).read_overlay("salience").nodes.get("Salience", {}).values()
    return [f"{r['item_id']}: {r['score']}" for r in rows if not 0.0 <= r["score"] <= 1.0]


DAY_EDGES = frozenset({("HAS_CHUNK", "Note", "Chunk"), ("ON_DAY", "Note", "Day"), ("ON_DAY", "Episode", "Day"),
                       ("IN_EPISODE", "Chunk", "Episode")})  # what `day_chunks` reads (no entity among them)


def day_view(files: NamespaceFiles) -> FactsView:
    """A view of the facts `day_chunks` reads: the nodes and `DAY_EDGES` (merges change none of them)."""
    return FactsView(files.read_facts(only=DAY_EDGES))


def missing_day_summaries(files: NamespaceFiles, view: FactsView, today: date) -> list[str]:
    """Closed days with content but no day summary."""
    have = {r["period"] for r in SleepFiles(files.root).read_overlay("summaries").nodes.get("Summary", {}).values() if r["level"] == "day"}
    return sorted(d for d in day_chunks(view) if date.fromisoformat(d) < today and d not in have)
