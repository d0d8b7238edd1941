"""Asset checks of sleep mode: merges keep types, nothing dangles, communities and closed
days are summarized, salience stays in [0, 1]. The `sleep_mode` step evaluates the selected
ones after its consolidation, on the graph it still holds open (one opening of the database
for the sync and the checks), each from the stores, independently of what the step computed."""

import functools
import time
from collections.abc import Callable, Collection, Iterator
from datetime import date

import dagster as dg

from mnemo.maintenance.store_integrity import dangling
from mnemo.sleep.merges import merged_sleep_facts
from mnemo.sleep.sleep_integrity import (
    community_problems,
    cross_type_merges,
    missing_day_summaries,
    salience_out_of_range,
)
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles
from mnemo_dagster.assets.ingest_checks import _namespaces
from mnemo_dagster.resources import GraphResource, MnemoConfigResource

Problems = Callable[[MnemoConfigResource, GraphResource, str, date], list[str]]


def _view(files: NamespaceFiles) -> Callable[[], FactsView]:
    """The merged facts' view, read on first use."""
    return functools.cache(lambda: FactsView(merged_sleep_facts(files)))


def _merges(config: MnemoConfigResource, graph: GraphResource, ns: str, today: date) -> list[str]:
    return cross_type_merges(config.files(ns))


def _dangling(config: MnemoConfigResource, graph: GraphResource, ns: str, today: date) -> list[str]:
    return [f"{ns}: {n} x {what}" for what, n in dangling(graph.store(ns)).items() if n]


def _communities(config: MnemoConfigResource, graph: GraphResource, ns: str, today: date) -> list[str]:
    files = config.files(ns)
    return community_problems(files, _view(files))


def _salience(config: MnemoConfigResource, graph: GraphResource, ns: str, today: date) -> list[str]:
    return salience_out_of_range(config.files(ns))


def _days(config: MnemoConfigResource, graph: GraphResource, ns: str, today: date) -> list[str]:
    return missing_day_summaries(config.files(ns), today)


CHECKS: dict[str, tuple[str, str, Problems]] = {  # check -> (sleep step of its asset, description, problems found)
    "merges_keep_types": ("dedup", "No merge joins entities of different ontology types.", _merges),
    "no_dangling_after_merges": ("dedup", "Nothing dangles after merges (aliases, chunks, entities).", _dangling),
    "communities_are_summarized": (
        "communities",
        "Every community has 2+ members and a summary citing its sources.",
        _communities,
    ),
    "salience_in_range": ("salience", "Every salience score lies in [0, 1].", _salience),
    "closed_days_summarized": ("summaries", "Every closed day with content has a day summary.", _days),
}


def check_specs(asset_keys: dict[str, dg.AssetKey]) -> list[dg.AssetCheckSpec]:
    """The checks' specs, given the asset key of each sleep step."""
    return [
        dg.AssetCheckSpec(name, asset=asset_keys[step], description=description)
        for name, (step, description, _) in CHECKS.items()
    ]


def check_results(
    context: dg.AssetExecutionContext, config: MnemoConfigResource, graph: GraphResource, today: date,
    selected: Collection[dg.AssetCheckKey],
) -> Iterator[dg.AssetCheckResult]:
    """The `selected` checks, in the order above, each over the run's namespace (every known one
    outside a partitioned run), with the seconds each took."""
    namespaces = _namespaces(context)
    for key in sorted(selected, key=lambda k: list(CHECKS).index(k.name)):
        start = time.perf_counter()
        problems = [p for ns in namespaces for p in CHECKS[key.name][2](config, graph, ns, today)]
        yield dg.AssetCheckResult(asset_key=key.asset_key, check_name=key.name, passed=not problems,
                                  metadata={"problems": len(problems),
                                            "seconds": round(time.perf_counter() - start, 3)})
