"""A forget killed at any of its write points, then run again, forgets everything: the entity or
memory is gone from `mnemo entity`, recall, the graph's and the vector tables' bytes (every
version), the pipeline's files, the inbox and the note's `mnemo-*` block; no journal, temp file or
log is left; and the re-run exits 0. The kill is a real SIGKILL in a child process; the re-run is
the CLI, in this process."""

import json
import os
import re
import shutil
import signal
from pathlib import Path

import dagster as dg
import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from mnemo.maintenance.doctor import examine
from mnemo.stores import faults
from mnemo.stores.files import NamespaceFiles
from ontology import load_ontology
from tests.support import EXAMPLE_VAULT, Workspace, make_workspace
from tests.support.forgetting import clone, kill_forget
from tests.support.needles import holders, lance_versions_holding

pytestmark = pytest.mark.slow  # a child process and a re-run per write point: minutes

runner = CliRunner()
VAULT = ("People/Priya Nair.md", "People/Alice Chen.md", "Organizations/Acme Robotics.md", "Places/Lisbon.md",
         "Projects/Project Heron.md", "Daily/2026-10-27.md")
PAGE = "People/Priya Nair.md"
ENTITY = "person_id:priya_nair"
PAGE_NEEDLES = ("Rotterdam", "Product manager")  # her note's text, her role: only in her note
MEMORY_TEXT = "The locker code at the climbing gym is zebra-7731-quokka"
MEMORY_NEEDLE = "zebra-7731-quokka"
LEFT_NAMES = (".tmp", ".wal", ".shadow", "forget.journal.json")
DURABLE_TEMP = re.compile(r"^\..+\.[a-z0-9_]{8}\.tmp$")
CACHE_FILE = re.compile(r"^files:\d+\.json$")
# The graph rebuild passes one point per table; these stand for them all: the first, the ones
# named in reports of this bug, the last, and the swap.
GRAPH_KEPT = {"graph.copy_nodes:Note", "graph.copy_nodes:Entity", "graph.copy_edges:KNOWS",
              "graph.copy_edges:REFERS_TO", "compaction:swap"}


def cli(config: Path, *args: str) -> str:
    result = runner.invoke(app, [*args, "-n", "test", "--config", str(config)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small vault and one memory, ingested, consolidated and written back (hashing embedder)."""
    root = tmp_path_factory.mktemp("prepared")
    for rel in VAULT:
        (root / "vault" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(EXAMPLE_VAULT / rel, root / "vault" / rel)
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(root / "vault")}]})
    workspace.ingest()
    MemoryClient("test", workspace.config_path).remember(MEMORY_TEXT, [])
    workspace.ingest()
    cli(workspace.config_path, "sleep")
    cli(workspace.config_path, "writeback")
    assert "\nmnemo-summary: " in (root / "vault" / PAGE).read_text(encoding="utf-8")
    return root


def memory_id(root: Path) -> str:
    return next((root / "data" / "test" / "inbox").glob("mem_*.json")).stem


def write_points(prepared: Path, root: Path, request: dict[str, str]) -> list[tuple[str, int]]:
    """The write points an uninterrupted forget passes: the graph rebuild's thinned to GRAPH_KEPT, the
    extractor cache's shard files to the first (each is the same kind of write as the others)."""
    config = clone(prepared, root)
    with faults.recording() as names:
        MemoryClient("test", config).forget(**request)
    points = faults.occurrences(names)
    kept = [p for p in points if not p[0].startswith("graph.") or p[0] in GRAPH_KEPT]
    caches = [p for p in kept if CACHE_FILE.match(p[0])]  # the structural extractor's cache, one file per shard
    return [p for p in kept if p not in caches[1:]]


def left_behind(root: Path) -> list[str]:
    """A cut-off graph rebuild's file or log, the forget's journal, a note's temp file, and what
    `mnemo doctor` finds. (A killed atomic write's own temp file, `.NAME.xxxx.tmp`, holds the new
    content, never what was forgotten: the byte search covers it.)"""
    data = root / "data"
    left = [p for p in data.rglob("*") if p.name.endswith(LEFT_NAMES) and not DURABLE_TEMP.match(p.name)]
    left += [p for p in (root / "vault").rglob("*") if p.name.endswith(".tmp")]
    return [p.relative_to(root).as_posix() for p in left] + [f.problem for f in examine(data, "test", load_ontology())]


def entity_left(root: Path, config: Path) -> list[str]:
    """Where anything of the forgotten entity is still found."""
    left = left_behind(root)
    client = MemoryClient("test", config)
    try:
        client.get_entity(ENTITY)
        left.append("mnemo entity")
    except MnemoError:
        pass
    for needle in PAGE_NEEDLES:
        left += [f"{needle} in {h}" for h in holders(root / "data", needle)]
        left += [f"{needle} in {v}" for v in lance_versions_holding(root / "data" / "test" / "lance", needle)]
        left += [f"{needle} recalled" for i in client.recall(f"{needle} Priya").items if needle in i.text]
    note = (root / "vault" / PAGE).read_bytes()
    if note != (EXAMPLE_VAULT / PAGE).read_bytes():
        left.append("her note is not as she wrote it: " + ", ".join(
            line for line in note.decode().splitlines() if line.startswith("mnemo-")))
    return left


def memory_left(root: Path, config: Path, memory: str) -> list[str]:
    """Where anything of the forgotten memory is still found."""
    left = left_behind(root)
    client = MemoryClient("test", config)
    if memory in {m.id for m in client.memories()}:
        left.append("listed")
    left += [f"in {h}" for h in holders(root / "data", MEMORY_NEEDLE)]
    left += [f"in {v}" for v in lance_versions_holding(root / "data" / "test" / "lance", MEMORY_NEEDLE)]
    left += ["recalled" for i in client.recall("climbing gym locker code").items if MEMORY_NEEDLE in i.text]
    return left


def kill_and_rerun(prepared: Path, root: Path, request: dict[str, str], args: list[str],
                   point: tuple[str, int]) -> list[str]:
    """Clone, kill the forget at `point`, run the same forget through the CLI; what is left."""
    config = clone(prepared, root)
    code = kill_forget(config, request, f"{point[0]}@{point[1]}:kill")
    assert code == -signal.SIGKILL, f"the forget was not killed at {point} (exit {code})"
    result = runner.invoke(app, ["forget", *args, "-n", "test", "--config", str(config)])
    if result.exit_code != 0 or "forgot: " not in result.output:
        return [f"re-run exit {result.exit_code}: {result.output.strip()}"]
    return entity_left(root, config) if "entity" in request else memory_left(root, config, request["memory"])


def run_every_point(prepared: Path, work: Path, request: dict[str, str], args: list[str]) -> dict[str, list[str]]:
    points = write_points(prepared, work / "trace", request)
    assert ("forget:journal", 1) in points and len(points) > 20, points
    failures = {}
    for i, point in enumerate(points):
        left = kill_and_rerun(prepared, work / f"p{i}", request, args, point)
        if left:
            failures[f"{point[0]}@{point[1]}"] = left
        shutil.rmtree(work / f"p{i}")
    return failures


def test_a_forgotten_entity_is_gone_after_a_kill_at_any_write_point_and_a_rerun(prepared: Path, tmp_path: Path) -> None:
    failures = run_every_point(prepared, tmp_path, {"entity": ENTITY}, ["--entity", ENTITY])
    assert failures == {}, json.dumps(failures, indent=1)


def test_a_forgotten_memory_is_gone_after_a_kill_at_any_write_point_and_a_rerun(prepared: Path, tmp_path: Path) -> None:
    memory = memory_id(prepared)
    failures = run_every_point(prepared, tmp_path, {"memory": memory}, ["--memory", memory])
    assert failures == {}, json.dumps(failures, indent=1)


def test_doctor_finds_a_cut_off_forget_and_fix_finishes_it(prepared: Path, tmp_path: Path) -> None:
    config = clone(prepared, tmp_path / "ws")
    assert kill_forget(config, {"entity": ENTITY}, "graph.copy_nodes:Entity@1:kill") == -signal.SIGKILL
    found = runner.invoke(app, ["doctor", "-n", "test", "--config", str(config)])
    assert found.exit_code == 1 and "a forget started" in found.output and "compact.tmp" in found.output, found.output
    refused = runner.invoke(app, ["writeback", "-n", "test", "--config", str(config)])
    assert refused.exit_code != 0 and "a forget was cut off" in refused.output
    fixed = cli(config, "doctor", "--fix")
    assert "finished the forget" in fixed
    assert entity_left(tmp_path / "ws", config) == []
    assert not (NamespaceFiles(tmp_path / "ws" / "data", "test").root / "forget.journal.json").exists()
    assert os.listdir(tmp_path / "ws" / "data" / "test" / "inbox")  # the memory was not forgotten


@pytest.mark.parametrize("finisher", ["ingest", "sleep"])
def test_ingest_and_sleep_finish_a_cut_off_forget_before_anything_else(prepared: Path, tmp_path: Path,
                                                                        finisher: str) -> None:
    root = tmp_path / "ws"
    config = clone(prepared, root)
    assert kill_forget(config, {"entity": ENTITY}, "sleep:summaries.json@1:kill") == -signal.SIGKILL
    if finisher == "ingest":
        Workspace(root, config, dg.DagsterInstance.ephemeral()).ingest()
    else:
        cli(config, "sleep")
    assert entity_left(root, config) == []
