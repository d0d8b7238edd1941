"""The sleep steps over one namespace, in order: dedup, communities, summaries, salience,
profile. Each reads the merged extraction facts, writes its overlay and state files, and
returns counts; `sync_graph` then brings the graph in line (only differences are written)."""

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from mnemo.sleep.abstractions import build_abstractions
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.communities import CommunityStats, build_communities, detect_or_reuse
from mnemo.sleep.merges import merged_sleep_facts, sleep_facts, sync_sleep_tables
from mnemo.sleep.profile import ProfileStats, build_profile
from mnemo.sleep.resolve import DedupResult, run_dedup
from mnemo.sleep.salience import SalienceStats, build_salience, pagerank
from mnemo.sleep.settings import SleepConfig
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import SummaryStats, build_summaries
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore


def _view(files: NamespaceFiles, view: FactsView | None) -> FactsView:
    return view if view is not None else FactsView(merged_sleep_facts(files))


def run_communities(
    files: NamespaceFiles, writer: SleepWriter | None = None, view: FactsView | None = None,
    sleep: SleepFiles | None = None, reuse: bool = True,
) -> CommunityStats:
    """Communities with their summaries (Leiden skipped while the entity graph is unchanged, unless
    `reuse` is off), then the abstraction nodes over them."""
    sleep = sleep or SleepFiles(files.root)
    view = _view(files, view)
    previous = sleep.read_overlay("communities")
    detected, state = detect_or_reuse(view, sleep.read_state("communities") if reuse else {})
    overlay, stats = build_communities(view, previous, writer, detected)
    sleep.write_overlay("communities", overlay, previous)
    sleep.write_state("communities", state)
    abstractions, found_state, found = build_abstractions(view, overlay, writer, sleep.read_state("abstractions"))
    sleep.write_overlay("abstractions", abstractions, sleep.read_overlay("abstractions"))
    sleep.write_state("abstractions", found_state)
    stats.concepts, stats.instance_links = found.concepts, found.links
    stats.llm_failures = writer.stats.failures if writer else 0
    return stats


def run_summaries(
    files: NamespaceFiles, settings: SleepConfig, now: datetime, view: FactsView | None = None, sleep: SleepFiles | None = None,
) -> SummaryStats:
    sleep = sleep or SleepFiles(files.root)
    previous = sleep.read_overlay("summaries")
    overlay, stats = build_summaries(_view(files, view), previous, now.date(), settings.week_after_days, settings.month_after_days)
    sleep.write_overlay("summaries", overlay, previous)
    return stats


def run_salience(
    files: NamespaceFiles, settings: SleepConfig, now: datetime, view: FactsView | None = None,
    sleep: SleepFiles | None = None, reuse: bool = True,
) -> SalienceStats:
    """Salience; PageRank is reused from the last run while the entity graph is unchanged (unless `reuse` is off)."""
    sleep = sleep or SleepFiles(files.root)
    view = _view(files, view)
    state = sleep.read_state("salience")
    digest = view.graph_digest()
    ranks = state["ranks"] if reuse and state.get("graph") == digest and "ranks" in state else pagerank(view)
    previous = sleep.read_overlay("salience")
    overlay, seen, stats = build_salience(view, sleep, settings, now, state.get("first_seen", {}), ranks, previous)
    sleep.write_overlay("salience", overlay, previous)
    fresh = {"first_seen": seen, "graph": digest, "ranks": ranks}
    if fresh != state:
        sleep.write_state("salience", fresh)
    return stats


def run_profile(
    files: NamespaceFiles, self_name: str | None, now: datetime, writer: SleepWriter | None = None, view: FactsView | None = None,
    sleep: SleepFiles | None = None,
) -> ProfileStats | None:
    sleep = sleep or SleepFiles(files.root)
    previous = sleep.read_overlay("profile")
    overlay, stats = build_profile(_view(files, view), self_name, previous,
                                   sleep.read_overlay("communities"), sleep.read_overlay("summaries"),
                                   now.isoformat(timespec="seconds"), writer)
    sleep.write_overlay("profile", overlay, previous)
    return stats


@dataclass
class SleepReport:
    dedup: DedupResult
    communities: CommunityStats
    summaries: SummaryStats
    salience: SalienceStats
    profile: ProfileStats | None
    graph_writes: int
    seconds: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def consolidate(
    files: NamespaceFiles, graph: GraphStore, settings: SleepConfig, now: datetime,
    self_name: str | None = None, vectors: VectorStore | None = None, run_id: str = "", writer: SleepWriter | None = None,
    reuse: bool = True,
) -> SleepReport:
    """Every sleep step in order over one read of the facts, then one graph sync; `seconds` holds
    each step's time. Steps share the overlays in memory; the sync compares only the tables of
    overlays that changed unless the merges changed. With a writer (an LLM), summaries and the
    portrait are abstractive and abstractions are proposed. `reuse` off recomputes what is otherwise
    reused while its inputs are unchanged (Leiden, PageRank, the sync's digests): the result is the same."""
    seconds: dict[str, float] = {}
    sleep = SleepFiles(files.root)
    facts = _timed(seconds, "read", lambda: sleep_facts(files))
    dedup = _timed(seconds, "dedup", lambda: run_dedup(files, settings, vectors, now.isoformat(timespec="seconds"), facts))
    view = _timed(seconds, "view", lambda: FactsView(facts))  # the merged facts: run_dedup applied the active merges
    communities = _timed(seconds, "communities", lambda: run_communities(files, writer, view, sleep, reuse))
    summaries = _timed(seconds, "summaries", lambda: run_summaries(files, settings, now, view, sleep))
    salience = _timed(seconds, "salience", lambda: run_salience(files, settings, now, view, sleep, reuse))
    profile = _timed(seconds, "profile", lambda: run_profile(files, self_name, now, writer, view, sleep))
    writes = _timed(seconds, "graph", lambda: sync_sleep_tables(files, graph, facts, run_id, sleep, reuse).writes)
    return SleepReport(dedup, communities, summaries, salience, profile, writes, seconds)


T = TypeVar("T")


def _timed(seconds: dict[str, float], name: str, step: Callable[[], T]) -> T:
    start = time.perf_counter()
    value = step()
    seconds[name] = round(time.perf_counter() - start, 2)
    return value
