"""Asset checks of sleep mode: merges keep types, nothing dangles, communities and closed
days are summarized, salience stays in [0, 1]."""

import functools
from collections.abc import Callable

import dagster as dg

from assets.checks import _namespaces
from assets.sleep import SPECS, run_time
from mnemo.checks import dangling
from mnemo.sleep.checks import community_problems, cross_type_merges, missing_day_summaries, salience_out_of_range
from mnemo.sleep.merges import merged_sleep_facts
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles
from resources import GraphResource, MnemoConfigResource


def _view(files: NamespaceFiles) -> Callable[[], FactsView]:
    """The merged facts' view, read on first use."""
    return functools.cache(lambda: FactsView(merged_sleep_facts(files)))


def _result(problems: list[str]) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(passed=not problems, metadata={"problems": len(problems), "examples": "\n".join(problems[:20])})


@dg.asset_check(asset=SPECS["dedup"].key, description="No merge joins entities of different ontology types.")
def merges_keep_types(context: dg.AssetCheckExecutionContext, mnemo_config: MnemoConfigResource) -> dg.AssetCheckResult:
    return _result([p for ns in _namespaces(context) for p in cross_type_merges(mnemo_config.files(ns))])


@dg.asset_check(asset=SPECS["dedup"].key, description="Nothing dangles after merges (aliases, chunks, entities).")
def no_dangling_after_merges(context: dg.AssetCheckExecutionContext, graph: GraphResource) -> dg.AssetCheckResult:
    return _result([f"{ns}: {n} x {what}" for ns in _namespaces(context) for what, n in dangling(graph.store(ns)).items() if n])


@dg.asset_check(asset=SPECS["communities"].key, description="Every community has 2+ members and a summary citing its sources.")
def communities_are_summarized(context: dg.AssetCheckExecutionContext, mnemo_config: MnemoConfigResource) -> dg.AssetCheckResult:
    files = [mnemo_config.files(ns) for ns in _namespaces(context)]
    return _result([p for f in files for p in community_problems(f, _view(f))])


@dg.asset_check(asset=SPECS["salience"].key, description="Every salience score lies in [0, 1].")
def salience_in_range(context: dg.AssetCheckExecutionContext, mnemo_config: MnemoConfigResource) -> dg.AssetCheckResult:
    return _result([p for ns in _namespaces(context) for p in salience_out_of_range(mnemo_config.files(ns))])


@dg.asset_check(asset=SPECS["summaries"].key, description="Every closed day with content has a day summary.")
def closed_days_summarized(context: dg.AssetCheckExecutionContext, mnemo_config: MnemoConfigResource) -> dg.AssetCheckResult:
    today = run_time(context).date()
    files = [mnemo_config.files(ns) for ns in _namespaces(context)]
    return _result([d for f in files for d in missing_day_summaries(f, today)])


sleep_checks = [merges_keep_types, no_dangling_after_merges, communities_are_summarized, salience_in_range, closed_days_summarized]
