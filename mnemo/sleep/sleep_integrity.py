"""Integrity checks of sleep mode's results (used by the asset checks and tests)."""

import json
from collections.abc import Callable
from datetime import date

import polars as pl

from mnemo.ingest.pipeline import graph_facts
from mnemo.sleep.merges import MergeLog
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles


def cross_type_merges(files: NamespaceFiles) -> list[str]:
    """Active merges whose two entities have different types in the extraction facts."""
    active = MergeLog(SleepFiles(files.root, files.session)).active()
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
    for row in SleepFiles(files.root, files.session).read_overlay("communities").nodes.get("Community", {}).values():
        members = json.loads(row["members"])
        if len(members) < 2:
            problems.append(f"{row['id']}: {len(members)} member")
        if not row["summary"]:
            problems.append(f"{row['id']}: no summary")
        if not row["sources"] and any(view().entity_chunks(e) for e in members):
            problems.append(f"{row['id']}: summary cites no chunk")
    return problems


def salience_out_of_range(files: NamespaceFiles) -> list[str]:
    rows = SleepFiles(files.root, files.session).read_overlay("salience").nodes.get("Salience", {}).values()
    return [f"{r['item_id']}: {r['score']}" for r in rows if not 0.0 <= r["score"] <= 1.0]


def content_days(files: NamespaceFiles) -> set[str]:
    """The days `summaries.day_chunks` finds content on, computed over the columns it reads (merges
    change none of them): days a note with chunks is placed on, days a passage of a note (not a
    conversation) was written on, and days an episode turn was said on."""
    base = files.root / "facts"
    if not (base / "edges.parquet").exists():
        return set()
    edges = pl.scan_parquet(base / "edges.parquet").select("table", "from_table", "to_table", "src", "dst")

    def rows(table: str, src: str, dst: str) -> pl.LazyFrame:
        return edges.filter((pl.col("table") == table) & (pl.col("from_table") == src) & (pl.col("to_table") == dst))

    has_chunk = rows("HAS_CHUNK", "Note", "Chunk").select(pl.col("src").alias("note")).unique()
    note_days = rows("ON_DAY", "Note", "Day").join(has_chunk, left_on="src", right_on="note").select(day=pl.col("dst"))
    turns = rows("IN_EPISODE", "Chunk", "Episode").select(chunk=pl.col("src"), episode=pl.col("dst"))
    chunks = pl.scan_parquet(base / "Chunk.parquet").select(chunk=pl.col("id"), timestamp=pl.col("timestamp"))
    said = (rows("ON_DAY", "Episode", "Day").select(episode=pl.col("src"), day=pl.col("dst"))
            .join(turns, on="episode").join(chunks, on="chunk")
            .filter(pl.when(pl.col("timestamp").fill_null("") == "").then(pl.col("day")).otherwise(pl.col("timestamp"))
                    .str.starts_with(pl.col("day")))
            .select("day"))
    chats = pl.scan_parquet(base / "Note.parquet").filter(pl.col("kind") == "chat").select(note=pl.col("id"))
    dated = (rows("HAS_CHUNK", "Note", "Chunk").select(note=pl.col("src"), chunk=pl.col("dst"))
             .join(chats, on="note", how="anti").join(chunks, on="chunk")
             .select(day=pl.col("timestamp").fill_null("").str.slice(0, 10))
             .filter(pl.col("day").str.contains(r"^\d{4}-\d\d-\d\d$")))
    return set(pl.concat([note_days, said, dated]).unique().collect()["day"].to_list())


def missing_day_summaries(files: NamespaceFiles, today: date) -> list[str]:
    """Closed days with content but no day summary."""
    have = {
        r["period"]
        for r in SleepFiles(files.root, files.session).read_overlay("summaries").nodes.get("Summary", {}).values()
        if r["level"] == "day"
    }
    return sorted(d for d in content_days(files) if date.fromisoformat(d) < today and d not in have)
