"""Crash consistency over every write point and SIGKILLs at random moments, on a whole vault.

Usage: .venv/bin/python benchmarks/crash_points.py [--vault examples/vault] [--seeds 10] [--limit N]
For a first ingest and for an incremental one (an edit, a deletion, a rename, a new note),
the ingest job is stopped at every pass of every write point (in process), re-run, and its
canonical dump compared with an uninterrupted run's. Then a child process is SIGKILLed at
--seeds random moments and at one pass of every kind of write point, and re-run the same way.
"""

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemo.maintenance.dump import differences  # noqa: E402
from tests.support.crash import Setup, converges, kill_at, trace, warm_up  # noqa: E402


def change(vault: Path) -> None:
    """Edit the first note, delete the second, rename the third, add a new one."""
    notes = sorted(p for p in vault.rglob("*.md") if ".obsidian" not in p.parts)
    notes[0].write_text(notes[0].read_text(encoding="utf-8") + "\nAn added line about [[Project Heron]].\n", encoding="utf-8")
    notes[1].unlink()
    notes[2].rename(notes[2].with_name("Renamed " + notes[2].name))
    (vault / "New note.md").write_text("---\ntype: person\naliases: [Newbie]\n---\nMet [[Alice Chen]].\n", encoding="utf-8")


def injected(work: Path, vault: Path, limit: int | None) -> tuple[int, int]:
    """Every pass of every write point, first and incremental ingest; returns (points, failures)."""
    sources = [{"kind": "obsidian", "path": str(vault)}]
    total = failed = 0
    empty = Setup(work / "empty", sources)
    reference = Setup(work / "ref1", sources)
    for scenario in ("first", "incremental"):
        if scenario == "incremental":
            start = Setup(work / "start2", sources)
            assert start.run()
            change(vault)
            reference = start.clone(work / "ref2")
        else:
            start = empty
        points = trace(reference)[:limit]
        began = time.perf_counter()
        outcome = converges(start, work / f"runs-{scenario}", points, reference.dump())
        failures = outcome.differ
        total, failed = total + len(points), failed + len(failures)
        kinds = sorted({name.split(":")[0] for name, _ in points})
        print(f"{scenario} ingest: {len(points)} write points ({len(kinds)} kinds: {', '.join(kinds)}), "
              f"{len(points) - len(failures)} converged, {len(failures)} differ "
              f"({outcome.undone} crashes had left the stores incomplete); {time.perf_counter() - began:.0f} s")
        for point, parts in failures.items():
            print(f"  DIFFERS after a crash at {point}: {parts}")
    return total, failed


def killed(work: Path, vault: Path, seeds: int) -> tuple[int, int]:
    """SIGKILL a child run at random moments and at every kind of write point; returns (runs, failures)."""
    sources = [{"kind": "obsidian", "path": str(vault)}]
    warm_up()
    reference = Setup(work / "kill-ref", sources)
    _, duration = kill_at(reference, delay=600)
    expected = reference.dump()
    kinds: dict[str, str] = {}
    for name, nth in trace(Setup(work / "kill-trace", sources)):
        kinds.setdefault(name.split(":")[0], f"{name}@{nth}:kill")
    plans = [(f"seed {s}", random.Random(s).uniform(0.02, 0.98) * duration, "") for s in range(1, seeds + 1)]
    plans += [(f"at {spec}", 600.0, spec) for spec in kinds.values()]
    runs = failures = 0
    for label, delay, fault in plans:
        setup = Setup(work / f"kill-{runs}", sources)
        was_killed, _ = kill_at(setup, delay, fault)
        ok = setup.run() and differences(setup.dump(), expected) == []
        runs, failures = runs + 1, failures + (not ok)
        print(f"  {label:45s} delay {delay:5.2f} s  killed={was_killed}  converged={ok}")
        shutil.rmtree(setup.root)
    print(f"SIGKILL runs: {runs} ({seeds} random moments in a {duration:.1f} s run, {len(kinds)} write-point kinds), {failures} did not converge")
    return runs, failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--limit", type=int, default=None, help="at most this many write points per scenario")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        vault = Path(shutil.copytree(args.vault, work / "vault"))
        points, bad_points = injected(work, vault, args.limit)
        fresh = Path(shutil.copytree(args.vault, work / "vault2"))
        runs, bad_runs = killed(work, fresh, args.seeds)
    print(f"TOTAL: {points} injected crash points ({bad_points} differ), {runs} SIGKILL runs ({bad_runs} differ)")
    return 1 if bad_points or bad_runs else 0


if __name__ == "__main__":
    sys.exit(main())
