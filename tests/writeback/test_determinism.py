"""The same inputs give the same notes, pages and graph: whatever order the graph returns its rows
in, and whatever the hash seed of the processes that ingest, consolidate and write back."""

import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import canonical_facts
from mnemo.stores.graph import GraphStore
from mnemo.writeback.run import plan_namespace
from ontology import load_ontology
from tests.support import EXAMPLE_VAULT, REPO, Workspace, corpus, make_workspace

DAY = "2026-11-22"
NIGHT = datetime(2026, 11, 22, 3, tzinfo=UTC)
UPDATED = re.compile(rb"(mnemo-updated:+ *\"?)\d{4}-\d{2}-\d{2}")  # the day a note's insights last changed


def planned(workspace: Workspace) -> dict[str, str]:
    """Every note and generated page a write-back would write, by path."""
    plan = plan_namespace(workspace.config, "test", load_ontology(), DAY)
    written = {c.path: c.new_text for c in plan.changes}
    written.update({f"page:{c.path}": c.new for p in plan.pages for c in p.changes})
    return written


def reversed_rows(workspace: Workspace) -> None:
    """The workspace's graph made again from the same facts, every table's rows inserted in the
    reverse order: the rows and counts are the same, the order a query returns them in is not."""
    facts = canonical_facts(workspace.files())
    facts.nodes = {t: dict(reversed(rows.items())) for t, rows in facts.nodes.items()}
    facts.edges = {k: dict(reversed(list(rows.items()))) for k, rows in facts.edges.items()}
    path = workspace.files().graph_path
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    GraphStore(path, load_ontology()).apply(facts)


def assert_order_free(tmp_path: Path, source: Path, kind: str) -> None:
    """A write-back over a graph and over the same graph with its rows inserted in reverse plans the same bytes."""
    shutil.copytree(source, tmp_path / "vault")
    sources = {"test": [{"kind": kind, "path": str(tmp_path / "vault")}]}
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first = make_workspace(tmp_path / "first", sources)
    first.ingest()
    consolidate(first.files(), first.graph(), SleepConfig(), NIGHT, "Sam Rivera")
    second = make_workspace(tmp_path / "second", sources)
    shutil.copytree(tmp_path / "first" / "data", tmp_path / "second" / "data")
    reversed_rows(second)
    assert first.graph().counts() == second.graph().counts()
    expected, found = planned(first), planned(second)
    assert len(expected) >= 40
    assert sorted(p for p in expected.keys() | found.keys() if expected.get(p) != found.get(p)) == []


@pytest.mark.slow
def test_writeback_does_not_depend_on_the_order_of_the_graphs_rows(tmp_path: Path) -> None:
    assert_order_free(tmp_path, EXAMPLE_VAULT, "obsidian")


@pytest.mark.slow
@pytest.mark.parametrize("name, kind", [("obsidian-kepano", "obsidian"), ("logseq-docs", "logseq")])
def test_writeback_of_a_real_vault_does_not_depend_on_the_order_of_the_graphs_rows(
    tmp_path: Path, name: str, kind: str,
) -> None:
    assert_order_free(tmp_path, corpus(name), kind)


def run_pipeline(root: Path, source: Path, kind: str, hash_seed: int) -> tuple[dict[str, bytes], dict[str, int]]:
    """`mnemo ingest`, `mnemo sleep` and `mnemo writeback` over a copy of `source` in `root`, in processes
    with the given hash seed; every file of the copy afterwards (its folder's path and the day of
    `mnemo-updated` left out) and the graph's rows per table."""
    vault = root / "vault"
    shutil.copytree(source, vault)
    for path in vault.rglob("*"):
        path.chmod(path.stat().st_mode | 0o200)
    config = root / "mnemo.yaml"
    config.write_text(yaml.safe_dump({
        "data_dir": str(root / "data"), "embedder": {"kind": "hashing"},
        "namespaces": {"test": {"self": "Sam Rivera", "sources": [{"kind": kind, "path": str(vault)}]}},
    }), encoding="utf-8")
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed), "DAGSTER_HOME": str(root / ".dagster"),
           "PYTHONPATH": str(REPO)}
    for command in (["ingest"], ["sleep", "-n", "test"], ["writeback", "-n", "test"]):
        done = subprocess.run([sys.executable, "-m", "mnemo.cli.main", *command, "--config", str(config)],
                              env=env, cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    files = {p.relative_to(vault).as_posix(): UPDATED.sub(rb"\1DAY", p.read_bytes().replace(bytes(root), b"ROOT"))
             for p in sorted(vault.rglob("*")) if p.is_file()}
    return files, GraphStore(root / "data" / "test" / "graph.kuzu", load_ontology()).counts()


def assert_same_runs(tmp_path: Path, source: Path, kind: str) -> None:
    started = date.today()
    first, first_counts = run_pipeline(tmp_path / "one", source, kind, 1)
    second, second_counts = run_pipeline(tmp_path / "two", source, kind, 2)
    if date.today() != started:
        pytest.skip("the runs crossed midnight: sleep mode's closed days differ")
    assert first_counts["CITES"] > 0 and first_counts["Community"] > 0
    assert {t: (n, second_counts[t]) for t, n in first_counts.items() if second_counts[t] != n} == {}
    assert sorted(p for p in first.keys() | second.keys() if first.get(p) != second.get(p)) == []


@pytest.mark.slow
def test_two_runs_of_the_example_vault_write_the_same_bytes(tmp_path: Path) -> None:
    assert_same_runs(tmp_path, EXAMPLE_VAULT, "obsidian")


@pytest.mark.slow
@pytest.mark.parametrize("name, kind", [("obsidian-kepano", "obsidian"), ("logseq-docs", "logseq")])
def test_two_runs_of_a_real_vault_write_the_same_bytes(tmp_path: Path, name: str, kind: str) -> None:
    assert_same_runs(tmp_path, corpus(name), kind)
