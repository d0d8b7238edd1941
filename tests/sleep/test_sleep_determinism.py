"""Sleep mode's files (merges, review queue, overlays, states) depend on the facts, not on the order
their rows are read in nor on the run: the same facts in reverse order give the same bytes."""

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.config import SleepConfig
from mnemo.facts import GraphFacts
from mnemo.sleep.consolidate import run_communities, run_profile, run_salience, run_summaries
from mnemo.sleep.merges import sleep_facts
from mnemo.sleep.resolve import run_dedup
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.vectors import VectorStore
from tests.support import EXAMPLE_VAULT, corpus, make_workspace

NIGHT = datetime(2026, 11, 22, 3, tzinfo=UTC)


def reversed_facts(facts: GraphFacts) -> GraphFacts:
    facts.nodes = {t: dict(reversed(rows.items())) for t, rows in reversed(facts.nodes.items())}
    facts.edges = {k: dict(reversed(list(rows.items()))) for k, rows in reversed(facts.edges.items())}
    return facts


def sleep_files(ingested: Path, root: Path, reverse: bool) -> dict[str, bytes]:
    """The sleep steps, as `consolidate` runs them, over a copy of an ingested namespace."""
    shutil.copytree(ingested, root)
    files = NamespaceFiles(root.parent, root.name)
    facts = reversed_facts(sleep_facts(files)) if reverse else sleep_facts(files)
    settings, sleep = SleepConfig(), SleepFiles(files.root)
    run_dedup(files, settings, VectorStore(files.vectors_path), NIGHT.isoformat(timespec="seconds"), facts)
    view = FactsView(facts)
    run_communities(files, None, view, sleep)
    run_summaries(files, settings, NIGHT, view, sleep)
    run_salience(files, settings, NIGHT, view, sleep)
    run_profile(files, "Sam Rivera", NIGHT, None, view, sleep)
    return {p.relative_to(sleep.root).as_posix(): p.read_bytes() for p in sorted(sleep.root.rglob("*")) if p.is_file()}


def assert_order_free(tmp_path: Path, source: Path, kind: str) -> None:
    shutil.copytree(source, tmp_path / "vault")
    workspace = make_workspace(tmp_path, {"test": [{"kind": kind, "path": str(tmp_path / "vault")}]})
    workspace.ingest()
    ingested = workspace.files().root
    first = sleep_files(ingested, tmp_path / "first" / "test", reverse=False)
    second = sleep_files(ingested, tmp_path / "second" / "test", reverse=True)
    assert "overlay/communities.json" in first and "state/salience.json" in first
    assert sorted(p for p in first.keys() | second.keys() if first.get(p) != second.get(p)) == []


@pytest.mark.slow
def test_sleep_files_do_not_depend_on_the_order_of_the_facts(tmp_path: Path) -> None:
    assert_order_free(tmp_path, EXAMPLE_VAULT, "obsidian")


@pytest.mark.slow
@pytest.mark.parametrize("name, kind", [("obsidian-antoniolandin-es", "obsidian"), ("logseq-docs", "logseq")])
def test_sleep_files_of_a_real_vault_do_not_depend_on_the_order_of_the_facts(
    tmp_path: Path, name: str, kind: str,
) -> None:
    assert_order_free(tmp_path, corpus(name), kind)
