"""The dedup step over a namespace: records from the canonical facts, decisions, the merge log
and the review queue."""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mnemo.config import SleepConfig
from mnemo.facts import GraphFacts, edge_columns
from mnemo.ingest.pipeline import graph_facts
from mnemo.sleep.blocking import Decisions, decide
from mnemo.sleep.dedup import EntityRecord, PairScore, display_names, review_reason, score_pair
from mnemo.sleep.merges import Merge, MergeError, MergeLog, apply_merges, merge_id, utc_now
from mnemo.sleep.store import SleepFiles, read_json, write_json
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.vectors import VectorStore

_ORIGIN_RANK = {"note": 0, "llm": 1, "link": 2}


@dataclass
class DedupResult:
    examined: int
    candidates: int
    merges: list[Merge] = field(default_factory=list)
    queued: int = 0
    queue_size: int = 0


def entity_records(facts: GraphFacts, vectors: dict[str, np.ndarray] | None = None) -> list[EntityRecord]:
    """One record per entity: names, type, neighbours (relations and co-mentions), display texts."""
    neighbours: dict[str, set[str]] = defaultdict(set)
    by_chunk: dict[str, set[str]] = defaultdict(set)
    surfaces = []
    for (table, src, dst), rows in facts.edges.items():
        if src == dst == "Entity":
            for a, b in zip(*edge_columns(rows, "src", "dst")):
                neighbours[a].add(b)
                neighbours[b].add(a)
        elif table == "MENTIONS":
            for chunk, entity, surface in zip(*edge_columns(rows, "src", "dst", "surface")):
                by_chunk[chunk].add(entity)
                surfaces.append((entity, surface))
    for members in by_chunk.values():
        for eid in members:
            neighbours[eid] |= members - {eid}
    shown = display_names(surfaces)
    vectors = vectors or {}
    return [
        EntityRecord(e["id"], e["kind"], e["name"], tuple(e["aliases"] or ()), frozenset(neighbours[e["id"]]),
                     frozenset(shown.get(e["id"], ())), vectors.get(e["id"]), has_page=e["origin"] == "note")
        for e in sorted(facts.nodes["Entity"].values(), key=lambda r: r["id"])
    ]


def entity_vectors(store: VectorStore | None) -> dict[str, np.ndarray]:
    return store.vectors_of("entities") if store is not None else {}


def _canonical_first(pair: PairScore, facts: GraphFacts, degree: dict[str, int]) -> tuple[str, str]:
    """Which of the two ids stays: a note's entity over an implied one, then the better connected."""
    def rank(eid: str) -> tuple[int, int, int, str]:
        row = facts.nodes["Entity"][eid]
        return (_ORIGIN_RANK.get(row["origin"], 1), -degree[eid], len(row["name"]), eid)
    first, second = sorted((pair.a, pair.b), key=rank)
    return first, second


def run_dedup(
    files: NamespaceFiles, settings: SleepConfig, vectors: VectorStore | None = None, now: str = "",
    facts: GraphFacts | None = None,
) -> DedupResult:
    """Merge clear duplicates (logged), queue uncertain ones for review, leave the rest. `facts`, when
    given, are the extraction facts already read; the active merges (new ones too) are applied to them."""
    sleep = SleepFiles(files.root, files.session)
    log = MergeLog(sleep)
    facts = graph_facts(files) if facts is None else facts
    apply_merges(facts, log.active())
    state = sleep.read_state("dedup")
    seen = state.get("entities", {})
    current = {eid: row["h"] for eid, row in facts.nodes["Entity"].items()}
    focus = {eid for eid, h in current.items() if seen.get(eid) != h}
    records = entity_records(facts, entity_vectors(vectors))
    queue = _still_in_doubt(sleep, read_review_queue(sleep), records, settings)
    apart = log.kept_apart() | {frozenset((q["a"], q["b"])) for q in queue if q["status"] == "rejected"}
    decisions = decide(records, settings.merge_threshold, settings.review_threshold, focus, apart) \
        if focus else Decisions()
    merges = _choose_merges(decisions.merges, facts, now or utc_now())
    log.record_merges(merges)
    queued = _enqueue(sleep, queue, decisions.review, {m.merged for m in merges})
    apply_merges(facts, merges)
    sleep.write_state("dedup", {"entities": {eid: row["h"] for eid, row in facts.nodes["Entity"].items()}})
    pending = sum(1 for q in read_review_queue(sleep) if q["status"] == "pending")
    return DedupResult(len(focus), decisions.candidates, merges, queued, pending)


def _choose_merges(pairs: list[PairScore], facts: GraphFacts, at: str) -> list[Merge]:
    if not pairs:
        return []
    degree: dict[str, int] = defaultdict(int)
    for rows in facts.edges.values():
        for a, b in zip(*edge_columns(rows, "src", "dst")):
            degree[a] += 1
            degree[b] += 1
    gone: set[str] = set()
    merges = []
    for pair in sorted(pairs, key=lambda p: (-p.score, p.a, p.b)):
        canonical, merged = _canonical_first(pair, facts, degree)
        if canonical in gone or merged in gone:
            continue
        gone.add(merged)
        merges.append(Merge(merge_id(canonical, merged), canonical, merged, pair.score, pair.reasons, "auto", at))
    return merges


def _still_in_doubt(sleep: SleepFiles, queue: list[dict[str, Any]], records: list[EntityRecord],
                    settings: SleepConfig) -> list[dict[str, Any]]:
    """The queue without pending pairs that today's rules no longer doubt (scored below review, or
    an entity gone); decided pairs stay as the record of the owner's word."""
    by_id = {r.id: r for r in records}

    def doubted(q: dict[str, Any]) -> bool:
        a, b = by_id.get(q["a"]), by_id.get(q["b"])
        return a is not None and b is not None and \
            settings.review_threshold <= score_pair(a, b).score < settings.merge_threshold
    kept = [q for q in queue if q["status"] != "pending" or doubted(q)]
    if len(kept) != len(queue):
        write_json(sleep.review_queue, kept)
    return kept


def read_review_queue(sleep: SleepFiles) -> list[dict[str, Any]]:
    """The queued pairs, the most likely first."""
    return sorted(read_json(sleep.review_queue, []), key=lambda q: (-q["score"], q["a"], q["b"]))


def _enqueue(sleep: SleepFiles, queue: list[dict[str, Any]], pairs: list[PairScore], merged: set[str]) -> int:
    known = {frozenset((q["a"], q["b"])) for q in queue}
    fresh = [
        {
            "id": merge_id(*sorted((p.a, p.b))),
            "a": p.a,
            "b": p.b,
            "score": p.score,
            "reasons": list(p.reasons),
            "reason": review_reason(p),
            "status": "pending",
        }
        for p in sorted(pairs, key=lambda p: (-p.score, p.a, p.b))
        if frozenset((p.a, p.b)) not in known and not {p.a, p.b} & merged
    ]
    if fresh:
        write_json(sleep.review_queue, queue + fresh)
    return len(fresh)


def decide_review(files: NamespaceFiles, item_id: str, accept: bool) -> dict[str, Any]:
    """Accept (merge, logged as decided by review) or reject (kept apart) one queued pair."""
    sleep = SleepFiles(files.root, files.session)
    queue = read_review_queue(sleep)
    item = next((q for q in queue if q["id"] == item_id), None)
    if item is None:
        raise MergeError(f"no review item {item_id!r} (see `mnemo review list`)")
    if item["status"] != "pending":
        raise MergeError(f"review item {item_id} was already {item['status']}")
    item["status"] = "accepted" if accept else "rejected"
    if accept:
        facts = graph_facts(files)
        log = MergeLog(sleep)
        apply_merges(facts, log.active())
        if item["a"] not in facts.nodes["Entity"] or item["b"] not in facts.nodes["Entity"]:
            raise MergeError(f"review item {item_id}: one of {item['a']}, {item['b']} no longer exists")
        pair = PairScore(item["a"], item["b"], item["score"], tuple(item["reasons"]))
        degree: dict[str, int] = defaultdict(int)
        canonical, merged = _canonical_first(pair, facts, degree)
        log.record_merges(
            [Merge(merge_id(canonical, merged), canonical, merged, pair.score, pair.reasons, "review", utc_now())]
        )
    write_json(sleep.review_queue, queue)
    return item
