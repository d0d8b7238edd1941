"""Salience and decay: an append-only access log, spaced-repetition strength, retention,
fading and promotion.

Each item (an entity, or an episodic chunk: of a journal page or a chat, or one that was ever accessed)
has a strength S in days. It starts at `BASE_STRENGTH` when the item is first seen and grows
with every access, more when the access comes after a long gap (the spacing effect):
S <- S * (1 + GAIN * (1 - R)) + 1, where R = exp(-dt / S) at the time of access.
Retention now is R = exp(-(now - last access) / S). An entity's salience mixes retention
with how often it is mentioned and its PageRank; a chunk's salience is its retention.
Below `fade_below` an item is `faded` (left out of eager recall, never deleted). Episodic
chunks accessed at least `promote_after_accesses` times are promoted: linked to the
entities they mention.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.config import SleepConfig
from mnemo.sleep.accesses import BASE_STRENGTH, AccessHistory, days_between, parse_time, replay
from mnemo.sleep.store import Overlay, SleepFiles, append_jsonl
from mnemo.sleep.view import FactsView

ACCESS_KINDS = ("recall", "remember", "lookup")
EPISODIC = ("journal", "chat")
SCORE_EPSILON = 0.05


@dataclass
class SalienceStats:
    items: int = 0
    faded: int = 0
    promoted: int = 0
    newly_faded: int = 0
    top_of_mind: list[str] | None = None


def record_access(namespace_root: Path, item_ids: list[str], kind: str, at: datetime | None = None) -> None:
    """Append one access per item to the namespace's access log (no graph lock is taken)."""
    if kind not in ACCESS_KINDS:
        raise ValueError(f"unknown access kind {kind!r}; use one of {ACCESS_KINDS}")
    stamp = (at or datetime.now(UTC)).isoformat(timespec="seconds")
    append_jsonl(SleepFiles(namespace_root).access_log, [{"id": i, "kind": kind, "at": stamp} for i in item_ids])


def strength(first_seen: datetime, accesses: list[datetime]) -> tuple[float, datetime]:
    """(S in days, time of last reinforcement) after replaying the accesses in order."""
    return replay(BASE_STRENGTH, first_seen, first_seen, accesses)


def build_salience(
    view: FactsView, sleep: SleepFiles, settings: SleepConfig, now: datetime, first_seen: dict[str, str],
    ranks: dict[str, float] | None = None, previous_overlay: Overlay | None = None, due: dict[str, Any] | None = None,
    fold: dict[str, Any] | None = None,
) -> tuple[Overlay, dict[str, str], SalienceStats, dict[str, Any], dict[str, Any]]:
    """The Salience overlay, the updated first-seen map, counts, the due map of this run's rows
    (see `due_rows`) and the access log's fold (see `accesses`). `ranks` is the entity PageRank and
    `previous_overlay` last run's overlay when the caller has them (read here otherwise); `due` and
    `fold` are last run's, if they may be trusted (the result is the same without them)."""
    history = AccessHistory(sleep.access_log, now, fold)
    accessed = history.ids  # every item the log names, at any time
    episodic = {
        c for note, ids in view.note_chunks.items() if view.notes.get(note, {}).get("kind") in EPISODIC for c in ids
    }
    chunk_items = sorted(c for c in view.chunks if c in episodic or c in accessed)
    stamp = now.isoformat(timespec="seconds")
    seen = {i: first_seen.get(i, stamp) for i in [*sorted(view.entities), *chunk_items]}
    ranks = pagerank(view) if ranks is None else ranks
    mentions = {e: len(view.mentions.get(e, ())) for e in view.entities}
    top_mentions = max(mentions.values(), default=0)
    previous_overlay = sleep.read_overlay("salience") if previous_overlay is None else previous_overlay
    previous = {r["item_id"]: r for r in previous_overlay.nodes.get("Salience", {}).values()}
    overlay, stats, scored = Overlay(previous_overlay), SalienceStats(), []
    reinforced = _reinforcement(history, now)
    fade, entities = settings.fade_below, view.entities
    log_top = math.log1p(top_mentions) if top_mentions else 0.0
    known = due["rows"] if due and due.get("rule") == _due_rule(fade) else {}
    now_s, carried, kept = now.timestamp(), {}, []
    for item, seen_at in seen.items():
        if item in known and item not in entities and item not in accessed and item not in ranks:
            old, (h, lo, hi) = previous.get(item), known[item]
            if old is not None and old["h"] == h and (lo is None or lo <= now_s) and (hi is None or now_s < hi) \
                    and _untouched_chunk(old, seen_at):
                kept.append(old)  # what the full computation below would keep: see `due_rows`
                carried[item] = known[item]
                continue
        hits, s, last, retention = reinforced(item, seen_at)
        rank = ranks.get(item, 0.0)
        if item in entities:
            kind, count = "entity", mentions[item]
            score = 0.5 * retention + 0.25 * (math.log1p(count) / log_top if log_top else 0.0) + 0.25 * rank
        else:
            kind, count, score = "chunk", 0, retention
        inputs = (kind, hits, last, s, count)
        score, rank = round(min(1.0, max(0.0, score)), 4), round(rank, 4)
        old = previous.get(item)
        if old is not None and _settles(old, inputs, score, rank, score < fade):
            scored.append(old)
            continue
        scored.append(
            {
                "id": f"salience_{item}",
                "item_id": item,
                "item_kind": kind,
                "accesses": hits,
                "last_access": last,
                "strength": s,
                "retention": round(retention, 4),
                "mentions": count,
                "pagerank": rank,
                "score": score,
                "faded": score < fade,
            }
        )
    _finish(overlay, view, scored, previous, settings, stats, kept)
    return overlay, seen, stats, due_rows(overlay, fade, carried), history.fold(seen)


def _reinforcement(history: AccessHistory, now: datetime) -> Callable[[str, str], tuple[int, float, str, float]]:
    """item, first seen -> (accesses until now, strength S rounded, last reinforcement, retention now).
    Items never accessed share theirs by first-seen stamp (a run's stamp: few distinct ones), so
    most items cost a lookup instead of parsing and formatting times."""
    unaccessed: dict[str, tuple[int, float, str, float]] = {}

    def reinforced(item: str, seen_at: str) -> tuple[int, float, str, float]:
        if item not in history.ids and seen_at in unaccessed:
            return unaccessed[seen_at]
        hits, s, last = history.reinforced(item, seen_at)
        found = hits, round(s, 3), last.isoformat(timespec="seconds"), math.exp(-days_between(last, now) / s)
        if item not in history.ids:
            unaccessed[seen_at] = found
        return found
    return reinforced


def _due_rule(fade: float) -> list[float]:
    """What the due times depend on besides the rows: a change of any drops them."""
    return [fade, SCORE_EPSILON, BASE_STRENGTH]


def _untouched_chunk(old: dict[str, Any], seen_at: str) -> bool:
    """Last run's row is that of a chunk never accessed, first seen at `seen_at`, outside top of mind."""
    return (old["item_kind"] == "chunk" and old["accesses"] == 0 and old["last_access"] == seen_at
            and old["strength"] == BASE_STRENGTH and old["mentions"] == 0 and old["pagerank"] == 0
            and old.get("top_of_mind") is False)


def due_rows(overlay: Overlay, fade: float, carried: dict[str, list[Any]]) -> dict[str, Any]:
    """The due map of an overlay's rows of never-accessed chunks: item -> [row hash, lo, hi], epoch
    seconds (None: unbounded) between which time alone cannot make the row change. Such a row's
    score is its retention R(t) = exp(-(t - first seen) / S) rounded to 4 places, falling with t;
    `_settles` keeps the row while the new score is within `SCORE_EPSILON` of it on the same side of
    `fade`. With a margin of 1e-4 for the rounding: from `lo`, R(t) <= score + eps and, for a faded
    row, R(t) < fade; until `hi`, R(t) >= score - eps and, for a row not faded, R(t) >= fade (runs
    may be replayed at earlier times, hence both bounds). Bounds are rounded inwards, so a
    run between them that finds the row's inputs unchanged keeps it without computing it (rows in
    `carried` were kept that way and keep their entry); any other run computes it."""
    rows, margin = dict(carried), 1e-4
    for row in overlay.nodes.get("Salience", {}).values():
        item = row["item_id"]
        if item in rows or row["item_kind"] != "chunk" or row["accesses"] != 0 or row.get("top_of_mind") is not False:
            continue
        start, days = parse_time(row["last_access"]).timestamp(), float(row["strength"]) * 86400.0
        upper = min(row["score"] + SCORE_EPSILON, fade if row["faded"] else 1.0 + margin) - margin
        lower = max(row["score"] - SCORE_EPSILON + margin, 0.0 if row["faded"] else fade + margin)
        if upper <= 0.0:
            continue  # computed every run
        lo = None if upper >= 1.0 else math.ceil(start - days * math.log(upper))
        hi = None if lower <= 0.0 else math.floor(start - days * math.log(min(lower, 1.0))) - 1
        rows[item] = [row["h"], lo, hi]
    return {"rule": _due_rule(fade), "rows": dict(sorted(rows.items()))}


def _settles(old: dict[str, Any], inputs: tuple[Any, ...], score: float, rank: float, faded: bool) -> bool:
    """Whether last run's row stays: only time moved the score, by less than `SCORE_EPSILON`, without
    crossing the fade threshold (and no graph write is made for it). The stored strength and last
    access give the retention at any later time (`retention_at`)."""
    kind, hits, last, s, count = inputs
    return (old.get("item_kind") == kind and old.get("accesses") == hits and old.get("last_access") == last
            and old.get("strength") == s and old.get("mentions") == count and old.get("faded") == faded
            and abs(old["score"] - score) < SCORE_EPSILON and abs(old["pagerank"] - rank) < SCORE_EPSILON)


def retention_at(row: dict[str, Any], now: datetime) -> float:
    """An item's retention at `now` from its stored strength and last access (read time, no rewrite)."""
    return math.exp(-days_between(parse_time(row["last_access"]), now) / max(1e-9, float(row["strength"])))


def _finish(overlay: Overlay, view: FactsView, rows: list[dict[str, Any]], previous: dict[str, Any],
            settings: SleepConfig, stats: SalienceStats, kept: list[dict[str, Any]]) -> None:
    """Top of mind, promotions and the overlay's rows: `rows` as computed, `kept` last run's rows of
    untouched chunks (`_untouched_chunk`: none is top of mind, promoted or newly faded)."""
    overlay.nodes.setdefault("Salience", {}).update((r["id"], r) for r in kept)
    entities = sorted(
        (r for r in rows if r["item_kind"] == "entity" and not r["faded"]), key=lambda r: (-r["score"], r["item_id"])
    )
    top = {r["item_id"] for r in entities[:settings.top_of_mind]}
    owners: dict[str, list[tuple[str, str]]] = {"Entity": [], "Chunk": [(r["id"], r["item_id"]) for r in kept]}
    for row in rows:
        if row is previous.get(row["item_id"]) and row.get("top_of_mind") == (row["item_id"] in top):
            overlay.keep_node("Salience", row)  # last run's row, as it was stored
        else:
            row = {**row, "top_of_mind": row["item_id"] in top}
            overlay.add_node("Salience", row)
        owners["Entity" if row["item_kind"] == "entity" else "Chunk"].append((row["id"], row["item_id"]))
        if row["item_kind"] == "chunk" and row["accesses"] >= settings.promote_after_accesses:
            targets = sorted(view.chunk_entities.get(row["item_id"], ()))
            for eid in targets:
                overlay.link("PROMOTED_TO", "Chunk", "Entity", row["item_id"], eid)
            stats.promoted += bool(targets)
        was = previous.get(row["item_id"])
        stats.newly_faded += row["faded"] and not (was and was["faded"])
    for table, ends in owners.items():
        overlay.link_all("SALIENCE_OF", "Salience", table, ends)
    stats.items, stats.faded = len(rows) + len(kept), sum(r["faded"] for r in rows) + sum(r["faded"] for r in kept)
    stats.top_of_mind = [r["item_id"] for r in entities[:settings.top_of_mind]]


DAMPING = 0.85
PAGERANK_ROUNDS = 200
PAGERANK_TOLERANCE = 1e-13


def pagerank(view: FactsView) -> dict[str, float]:
    """Each entity's PageRank over the entity graph (weighted, undirected), scaled so the largest is 1.
    By power iteration in a fixed order: igraph's solver gives values that differ in their last digits
    from one call to the next, and a score rounded at the edge of a digit then differs between runs."""
    graph, ids = view.entity_graph()
    n = graph.vcount()
    if n == 0:
        return {}
    ends = np.array(graph.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    src, dst = np.concatenate([ends[:, 0], ends[:, 1]]), np.concatenate([ends[:, 1], ends[:, 0]])
    weight = np.tile(np.array(graph.es["weight"] if len(ends) else [], dtype=np.float64), 2)
    strength = np.bincount(src, weights=weight, minlength=n)
    dangling = strength == 0
    share = np.divide(weight, strength[src], out=np.zeros_like(weight), where=strength[src] > 0)
    ranks = np.full(n, 1.0 / n)
    for _ in range(PAGERANK_ROUNDS):
        spread = np.bincount(dst, weights=ranks[src] * share, minlength=n) + ranks[dangling].sum() / n
        fresh = (1 - DAMPING) / n + DAMPING * spread
        done = np.abs(fresh - ranks).sum() < PAGERANK_TOLERANCE
        ranks = fresh
        if done:
            break
    top = float(ranks.max()) or 1.0
    return {eid: float(r) / top for eid, r in zip(ids, ranks)}


def read_salience(namespace_root: Path) -> dict[str, dict[str, Any]]:
    """item id -> its last computed salience row (score, faded, top_of_mind ...), lock-free."""
    rows = SleepFiles(namespace_root).read_overlay("salience").nodes.get("Salience", {})
    return {r["item_id"]: r for r in rows.values()}
