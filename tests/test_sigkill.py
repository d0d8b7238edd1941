"""A real process running the ingest job is SIGKILLed at random moments; the re-run converges.

Each seed draws a moment within the time an uninterrupted child run takes. After the kill,
no lock is left behind (the namespace lock and Kùzu's open at once), and a normal re-run
gives the canonical dump of the uninterrupted run. benchmarks/crash_points.py runs more seeds.
"""

import random
from pathlib import Path

from mnemo.canonical import differences
from mnemo.locks import namespace_lock
from mnemo.stores.graph import GraphStore
from ontology import load_ontology
from tests.crash_harness import Setup, kill_at, warm_up
from tests.test_crash_consistency import small_vault

SEEDS = (1, 2, 3)


def assert_no_stale_lock(setup: Setup) -> None:
    root = setup.data_dir / setup.namespace
    with namespace_lock(root, exclusive=True, wait_seconds=0):
        pass
    graph = GraphStore(root / "graph.kuzu", load_ontology())
    if graph.path.exists():
        with graph.connect(wait_seconds=0):
            pass


def test_sigkill_at_random_moments_then_rerun_converges(tmp_path: Path) -> None:
    sources = [{"kind": "obsidian", "path": str(small_vault(tmp_path / "vault"))}]
    reference = Setup(tmp_path / "ref", sources)
    warm_up()
    killed, duration = kill_at(reference, delay=120)
    assert not killed, "the uninterrupted child run did not finish"
    expected = reference.dump()
    kills = 0
    for seed in SEEDS:
        setup = Setup(tmp_path / f"seed{seed}", sources)
        killed, _ = kill_at(setup, delay=random.Random(seed).uniform(0.05, 0.9) * duration)
        kills += killed
        assert_no_stale_lock(setup)
        assert setup.run(), f"the re-run after the kill of seed {seed} failed"
        assert differences(setup.dump(), expected) == [], f"seed {seed}"
    assert kills == len(SEEDS)


def test_sigkill_inside_a_graph_write_then_rerun_converges(tmp_path: Path) -> None:
    """The child kills itself at a write point in the middle of the Kùzu reconciliation."""
    sources = [{"kind": "obsidian", "path": str(small_vault(tmp_path / "vault"))}]
    setup = Setup(tmp_path / "killed", sources)
    killed, _ = kill_at(setup, delay=120, fault="graph.copy_edges:MENTIONS@1:kill")
    assert killed
    assert_no_stale_lock(setup)
    assert setup.run()
    reference = Setup(tmp_path / "ref", sources)
    assert reference.run()
    assert differences(setup.dump(), reference.dump()) == []
