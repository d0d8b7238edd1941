"""Crash consistency: a run stopped at any write point, then re-run, equals an uninterrupted run.

The tests check which kinds of write point a first and an incremental ingest (edit,
deletion, rename, new note) pass, stop the ingest job (in process) at a seeded choice of
them and compare canonical dumps after recovery. benchmarks/crash_points.py stops it at
every single pass on the whole example vault.
"""

import random
import shutil
from pathlib import Path

import pytest

from mnemo.stores import faults
from tests.support import EXAMPLE_VAULT
from tests.support.crash import Setup, converges, trace

pytestmark = pytest.mark.slow  # over 20 s on two cores

SMALL_VAULT = (
    "People/Alice Chen.md", "People/Bob Martins.md", "Organizations/Acme Robotics.md", "Places/Lisbon.md",
    "Projects/Project Heron.md", "Daily/2026-09-01.md", "Daily/2026-09-02.md", "Concepts/Zettelkasten.md",
)


def small_vault(target: Path) -> Path:
    for rel in SMALL_VAULT:
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(EXAMPLE_VAULT / rel, target / rel)
    return target


def change_vault(vault: Path) -> None:
    """An edit, a deletion, a rename and a new note."""
    alice = vault / "People/Alice Chen.md"
    alice.write_text(alice.read_text(encoding="utf-8").replace("aliases: [Ali, A. Chen]", "aliases: [Ali]") + "\nMet [[Bob Martins]] for coffee.\n", encoding="utf-8")
    (vault / "People/Bob Martins.md").unlink()
    (vault / "Places/Lisbon.md").rename(vault / "Places/Lisboa.md")
    shutil.copy2(EXAMPLE_VAULT / "Daily/2026-09-03.md", vault / "Daily/2026-09-03.md")


def kind(point: tuple[str, int]) -> str:
    return point[0].split(":")[0]


def one_per_kind(points: list[tuple[str, int]], kinds: set[str]) -> list[tuple[str, int]]:
    """One pass of each of the given kinds of write point (kind: the name before ':'), drawn with a fixed seed."""
    by_kind: dict[str, list[tuple[str, int]]] = {}
    for point in points:
        by_kind.setdefault(kind(point), []).append(point)
    draw = random.Random(9)
    return [draw.choice(group) for name, group in by_kind.items() if name in kinds]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return small_vault(tmp_path / "vault")


FIRST_KINDS = {"files", "state", "kept", "vectors.upsert", "vectors.fts_index", "graph.copy_nodes", "graph.copy_edges"}
INCREMENTAL_KINDS = {"graph.delete_edges", "graph.delete_nodes", "graph.update_nodes", "vectors.delete", "vectors.update"}


def test_first_ingest_converges_after_a_crash_at_every_kind_of_write_point(tmp_path: Path, vault: Path) -> None:
    sources = [{"kind": "obsidian", "path": str(vault)}]
    reference = Setup(tmp_path / "ref", sources)
    points = trace(reference)
    assert {kind(p) for p in points} == FIRST_KINDS
    # not the run's last write: a crash after it leaves nothing undone to converge from
    chosen = one_per_kind(points[:-1], {"files", "state", "kept", "graph.copy_edges"})
    outcome = converges(Setup(tmp_path / "start", sources), tmp_path / "work", chosen, reference.dump())
    assert outcome.differ == {} and outcome.undone == len(chosen)


def test_incremental_ingest_converges_after_a_crash_at_every_kind_of_write_point(tmp_path: Path, vault: Path) -> None:
    sources = [{"kind": "obsidian", "path": str(vault)}]
    start = Setup(tmp_path / "start", sources)
    assert start.run()
    change_vault(vault)
    reference = start.clone(tmp_path / "ref")
    points = trace(reference)
    assert {kind(p) for p in points} - FIRST_KINDS == INCREMENTAL_KINDS
    chosen = one_per_kind(points, {"graph.delete_nodes", "vectors.delete"})
    outcome = converges(start, tmp_path / "work", chosen, reference.dump())
    assert outcome.differ == {} and outcome.undone == len(chosen)


def test_fault_spec_parsing() -> None:
    arm = faults.parse_spec("graph.copy_nodes:Entity@3:kill")
    assert (arm.name, arm.nth, arm.kill) == ("graph.copy_nodes:Entity", 3, True)
    assert faults.parse_spec("files:manifest.parquet").nth == 1
    with pytest.raises(ValueError, match="MNEMO_FAULT"):
        faults.parse_spec("x@0")
