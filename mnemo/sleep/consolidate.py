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
from mnemo.sleep.communities import CommunityStats, build_communities
from mnemo.sleep.merges import merged_facts, sync_graph
from mnemo.sleep.profile import ProfileStats, build_profile
from mnemo.sleep.resolve import DedupResult, run_dedup
from mnemo.sleep.salience import SalienceStats, build_salience
from mnemo.sleep.settings import SleepConfig
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import SummaryStats, build_summaries
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore


def run_communities(files: NamespaceFiles, writer: SleepWriter | None = None) -> CommunityStats:
    """Communities with their summaries, then the abstraction nodes over them."""
    sleep = SleepFiles(files.root)
    view = FactsView(merged_facts(files))
    overlay, stats = build_communities(view, sleep.read_overlay("communities"), writer)
    sleep.write_overlay("communities", overlay)
    abstractions, state, found = build_abstractions(view, overlay, writer, sleep.read_state("abstractions"))
    sleep.write_overlay("abstractions", abstractions)
    sleep.write_state("abstractions", state)
    stats.concepts, stats.instance_links = found.concepts, found.links
    stats.llm_failures = writer.stats.failures if writer else 0
    return stats


def run_summaries(files: NamespaceFiles, settings: SleepConfig, now: datetime) -> SummaryStats:
    sleep = SleepFiles(files.root)
    overlay, stats = build_summaries(FactsView(merged_facts(files)), sleep.read_overlay("summaries"), now.date(),
                                     settings.week_after_days, settings.month_after_days)
    sleep.write_overlay("summaries", overlay)
    return stats


def run_salience(files: NamespaceFiles, settings: SleepConfig, now: datetime) -> SalienceStats:
    sleep = SleepFiles(files.root)
    state = sleep.read_state("salience")
    overlay, seen, stats = build_salience(FactsView(merged_facts(files)), sleep, settings, now, state.get("first_seen", {}))
    sleep.write_overlay("salience", overlay)
    sleep.write_state("salience", {"first_seen": seen})
    return stats


def run_profile(files: NamespaceFiles, self_name: str | None, now: datetime, writer: SleepWriter | None = None) -> ProfileStats | None:
    sleep = SleepFiles(files.root)
    overlay, stats = build_profile(FactsView(merged_facts(files)), self_name, sleep.read_overlay("profile"),
                                   sleep.read_overlay("communities"), sleep.read_overlay("summaries"),
                                   now.isoformat(timespec="seconds"), writer)
    sleep.write_overlay("profile", overlay)
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
) -> SleepReport:
    """Every sleep step in order, then one graph sync; `seconds` holds each step's time. With a
    writer (an LLM), summaries and the portrait are abstractive and abstractions are proposed."""
    seconds: dict[str, float] = {}
    dedup = _timed(seconds, "dedup", lambda: run_dedup(files, settings, vectors, now.isoformat(timespec="seconds")))
    communities = _timed(seconds, "communities", lambda: run_communities(files, writer))
    summaries = _timed(seconds, "summaries", lambda: run_summaries(files, settings, now))
    salience = _timed(seconds, "salience", lambda: run_salience(files, settings, now))
    profile = _timed(seconds, "profile", lambda: run_profile(files, self_name, now, writer))
    writes = _timed(seconds, "graph", lambda: sync_graph(files, graph, run_id).writes)
    return SleepReport(dedup, communities, summaries, salience, profile, writes, seconds)


T = TypeVar("T")


def _timed(seconds: dict[str, float], name: str, step: Callable[[], T]) -> T:
    start = time.perf_counter()
    value = step()
    seconds[name] = round(time.perf_counter() - start, 2)
    return value
