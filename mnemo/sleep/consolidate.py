"""The sleep steps over one namespace, in order: dedup, communities, summaries, salience,
profile. Each reads the merged extraction facts, writes its overlay and state files, and
returns counts; `sync_graph` then brings the graph in line (only differences are written)."""

import time
from collections.abc import Callable, Collection
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from mnemo.config import SleepConfig
from mnemo.facts import GraphFacts
from mnemo.runtime import collections_paused
from mnemo.sleep.abstractions import build_abstractions
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.communities import DIGESTS, CommunityStats, build_communities, detect_or_reuse
from mnemo.sleep.merges import MergeLog, apply_merges, merged_sleep_facts, sleep_facts, sync_sleep_tables
from mnemo.sleep.profile import ProfileStats, build_profile
from mnemo.sleep.resolve import DedupResult, run_dedup
from mnemo.sleep.salience import SalienceStats, build_salience, pagerank
from mnemo.sleep.speaker_profiles import build_speaker_profiles
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import SummaryStats, build_summaries
from mnemo.sleep.themes import run_themes
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore

T = TypeVar("T")


def _view(files: NamespaceFiles, view: FactsView | None) -> FactsView:
    return view if view is not None else FactsView(merged_sleep_facts(files))


def run_communities(
    files: NamespaceFiles, writer: SleepWriter | None = None, view: FactsView | None = None,
    sleep: SleepFiles | None = None, reuse: bool = True,
) -> CommunityStats:
    """Communities with their summaries (Leiden skipped while the entity graph is unchanged, unless
    `reuse` is off), then the abstraction nodes over them."""
    sleep = sleep or SleepFiles(files.root, files.session)
    view = _view(files, view)
    previous = sleep.read_overlay("communities")
    kept = sleep.read_state("communities")
    detected, state = detect_or_reuse(view, kept if reuse else {})
    overlay, stats = build_communities(view, previous, writer, detected, legacy=kept.get("digests") != DIGESTS)
    sleep.write_overlay("communities", overlay, previous)
    sleep.write_state("communities", {**state, "digests": DIGESTS})
    abstractions, found_state, found = build_abstractions(view, overlay, writer, sleep.read_state("abstractions"))
    sleep.write_overlay("abstractions", abstractions, sleep.read_overlay("abstractions"))
    sleep.write_state("abstractions", found_state)
    stats.concepts, stats.instance_links = found.concepts, found.links
    stats.llm_failures = writer.stats.failures if writer else 0
    stats.flagged = len(writer.stats.flagged) if writer else 0
    return stats


def run_summaries(
    files: NamespaceFiles,
    settings: SleepConfig,
    now: datetime,
    view: FactsView | None = None,
    sleep: SleepFiles | None = None,
    writer: SleepWriter | None = None,
) -> SummaryStats:
    """Day, week and month summaries; with a writer (an LLM) the week and month ones are abstractive."""
    sleep = sleep or SleepFiles(files.root, files.session)
    previous = sleep.read_overlay("summaries")
    overlay, stats = build_summaries(
        _view(files, view), previous, now.date(), settings.week_after_days, settings.month_after_days, writer
    )
    sleep.write_overlay("summaries", overlay, previous)
    return stats


def run_salience(
    files: NamespaceFiles, settings: SleepConfig, now: datetime, view: FactsView | None = None,
    sleep: SleepFiles | None = None, reuse: bool = True,
) -> SalienceStats:
    """Salience; PageRank is reused from the last run while the entity graph is unchanged, the access
    log is read from where the last run stopped (`accesses`), and rows that time alone cannot have
    changed yet are kept without computing them (`due_rows`), unless `reuse` is off."""
    sleep = sleep or SleepFiles(files.root, files.session)
    view = _view(files, view)
    state = sleep.read_state("salience")
    digest = view.graph_digest()
    ranks = state["ranks"] if reuse and state.get("graph") == digest and "ranks" in state else pagerank(view)
    previous = sleep.read_overlay("salience")
    folded = sleep.read_state("accesses") or None
    overlay, seen, stats, due, fold = build_salience(
        view,
        sleep,
        settings,
        now,
        state.get("first_seen", {}),
        ranks,
        previous,
        state.get("due") if reuse else None,
        folded if reuse else None,
    )
    sleep.write_overlay("salience", overlay, previous)
    fresh = {"first_seen": seen, "graph": digest, "ranks": ranks, "due": due}
    if fresh != state:
        sleep.write_state("salience", fresh)
    sleep.write_state("accesses", fold)
    return stats


def run_profile(
    files: NamespaceFiles,
    self_name: str | None,
    now: datetime,
    writer: SleepWriter | None = None,
    view: FactsView | None = None,
    sleep: SleepFiles | None = None,
) -> ProfileStats | None:
    sleep = sleep or SleepFiles(files.root, files.session)
    previous = sleep.read_overlay("profile")
    overlay, stats = build_profile(_view(files, view), self_name, previous,
                                   sleep.read_overlay("communities"), sleep.read_overlay("summaries"),
                                   now.isoformat(timespec="seconds"), writer)
    sleep.write_overlay("profile", overlay, previous)
    return stats


def run_speakers(files: NamespaceFiles, vectors: VectorStore | None, sleep: SleepFiles | None = None) -> int | None:
    """Profile items of the people in the namespace's conversations (`sleep.speaker_profiles`),
    written to the state `speakers`; how many (None without the vectors they are grouped by)."""
    if vectors is None or vectors.open("chunks") is None:
        return None
    chunks = files.read_chunks()
    chats = any(c.kind == "chat" for c in chunks)  # a vault of notes alone: no vectors read
    state = build_speaker_profiles(chunks, vectors.vectors_of("chunks") if chats else {})
    (sleep or SleepFiles(files.root, files.session)).write_state("speakers", state)
    return len(state["items"])


STEPS = ("dedup", "communities", "summaries", "salience", "profile")  # `profile` also makes the speakers' items


@dataclass
class SleepReport:
    """What each step did (None for a step not run), graph writes in all and per table, seconds per step."""

    dedup: DedupResult | None
    communities: CommunityStats | None
    summaries: SummaryStats | None
    salience: SalienceStats | None
    profile: ProfileStats | None
    speakers: int | None  # profile items of the people in conversations
    graph_writes: int
    seconds: dict[str, float] = field(default_factory=dict)
    table_writes: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def consolidate(
    files: NamespaceFiles,
    graph: GraphStore,
    settings: SleepConfig,
    now: datetime,
    self_name: str | None = None,
    vectors: VectorStore | None = None,
    run_id: str = "",
    writer: SleepWriter | None = None,
    reuse: bool = True,
    steps: Collection[str] = STEPS,
) -> SleepReport:
    """The sleep `steps` in order over one read of the facts, then one graph sync; `seconds` holds
    each step's time. Steps share the overlays in memory; the sync compares only the tables of
    overlays that changed unless the merges changed. With a writer (an LLM), summaries and the
    portrait are abstractive and abstractions are proposed. `reuse` off recomputes what is otherwise
    reused while its inputs are unchanged (Leiden, PageRank, the sync's digests): the result is the same."""
    seconds: dict[str, float] = {}
    with collections_paused():  # the rows read live through the run: nothing for the collector to find
        facts = _timed(seconds, "read", lambda: sleep_facts(files))
        report = _consolidate(
            files, graph, settings, now, self_name, vectors, run_id, writer, reuse, steps, facts, seconds
        )
        del facts  # freed here, by reference counts, not walked by the first collection after the pause
    files.session.sleep_wrote()
    return report


def _consolidate(
    files: NamespaceFiles, graph: GraphStore, settings: SleepConfig, now: datetime, self_name: str | None,
    vectors: VectorStore | None, run_id: str, writer: SleepWriter | None, reuse: bool, steps: Collection[str],
    facts: GraphFacts, seconds: dict[str, float],
) -> SleepReport:
    sleep = SleepFiles(files.root, files.session)
    stamp = now.isoformat(timespec="seconds")
    if "dedup" in steps:
        dedup = _timed(seconds, "dedup", lambda: run_dedup(files, settings, vectors, stamp, facts))  # merges applied
    else:
        dedup = None
        apply_merges(facts, MergeLog(sleep).active())
    view = _timed(seconds, "view", lambda: FactsView(facts))

    def step(name: str, run: Callable[[], T]) -> T | None:
        return _timed(seconds, name, run) if name in steps else None

    communities = step("communities", lambda: run_communities(files, writer, view, sleep, reuse))
    if communities is not None and vectors is not None:
        _timed(seconds, "themes", lambda: run_themes(view, sleep, vectors))
    summaries = step("summaries", lambda: run_summaries(files, settings, now, view, sleep, writer))
    salience = step("salience", lambda: run_salience(files, settings, now, view, sleep, reuse))
    profile = step("profile", lambda: run_profile(files, self_name, now, writer, view, sleep))
    speakers = _timed(seconds, "speakers", lambda: run_speakers(files, vectors, sleep)) if "profile" in steps else None
    synced = _timed(seconds, "graph", lambda: sync_sleep_tables(files, graph, facts, run_id, sleep, reuse))
    tables: dict[str, int] = {}
    for counts in (synced.inserted, synced.updated, synced.deleted):
        for table, n in counts.items():
            tables[table] = tables.get(table, 0) + n
    return SleepReport(dedup, communities, summaries, salience, profile, speakers, synced.writes, seconds,
                       {t: n for t, n in sorted(tables.items()) if n})


def _timed(seconds: dict[str, float], name: str, step: Callable[[], T]) -> T:
    start = time.perf_counter()
    value = step()
    seconds[name] = round(time.perf_counter() - start, 3)
    return value
