"""Integrity checks of sleep mode's results (used by the asset checks and tests)."""

import json
from datetime import date

from mnemo.pipeline import graph_facts
from mnemo.sleep.merges import MergeLog
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import day_chunks
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles


def cross_type_merges(files: NamespaceFiles) -> list[str]:
    """Active merges whose two entities have different types in the extraction facts."""
    entities = graph_facts(files).nodes["Entity"]
    bad = []
    for merge in MergeLog(SleepFiles(files.root)).active():
        a, b = entities.get(merge.canonical), entities.get(merge.merged)
        if a and b and a["kind"] != b["kind"]:
            bad.append(f"{merge.merge_id}: {merge.merged} ({b['kind']}) into {merge.canonical} ({a['kind']})")
    return bad


def community_problems(files: NamespaceFiles, view: FactsView) -> list[str]:
    """Communities with fewer than 2 members, no summary, or no citation although members have chunks."""
    problems = []
    for row in SleepFiles(files.root).read_overlay("communities").nodes.get("Community", {}).values():
        members = json.loads(row["members"])
        has_text = any(view.entity_chunks(e) for e in members)
        if len(members) < 2:
            problems.append(f"{row['id']}: {len(members)} member")
        if not row["summary"]:
            problems.append(f"{row['id']}: no summary")
        if has_text and not row["sources"]:
            problems.append(f"{row['id']}: summary cites no chunk")
    return problems


def salience_out_of_range(files: NamespaceFiles) -> list[str]:
    rows = SleepFiles(files.root).read_overlay("salience").nodes.get("Salience", {}).values()
    return [f"{r['item_id']}: {r['score']}" for r in rows if not 0.0 <= r["score"] <= 1.0]


def missing_day_summaries(files: NamespaceFiles, view: FactsView, today: date) -> list[str]:
    """Closed days with content but no day summary."""
    have = {r["period"] for r in SleepFiles(files.root).read_overlay("summaries").nodes.get("Summary", {}).values() if r["level"] == "day"}
    return sorted(d for d in day_chunks(view) if date.fromisoformat(d) < today and d not in have)
