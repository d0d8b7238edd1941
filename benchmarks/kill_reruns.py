"""SIGKILL runs at named write points and at random moments, then start a fresh run; count convergence.

Usage: .venv/bin/python benchmarks/kill_reruns.py [--vault examples/vault] [--named 22] [--timed 10] [--seed 7]

Three scenarios: a first ingest, an ingest after the vault changed (an edit, a deletion, a rename,
a new note) and a sleep-mode run (with a fixed clock). Each run is a process of its own on the
instance made from the repo's dagster.yaml (persistent SQLite storage, the run queue, pools and
run monitoring), as `make demo` uses. For each kill: the scenario's start state is copied, a
child runs the job and is SIGKILLed (itself at the n-th pass of a named write point, or by this
script after a random share of an uninterrupted run's time), then a fresh child runs the same job
with no fault. It converged when that run succeeds and the namespace's canonical dump (plus, for
sleep, its sleep files) equals an uninterrupted run's. The recovery time is the fresh run's wall
time, measured from its start to its end (including waiting for what the killed run held).
"""

import argparse
import hashlib
import random
import shutil
import signal
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.crash_points import change  # noqa: E402
from mnemo.maintenance.dump import differences  # noqa: E402
from mnemo.stores import faults  # noqa: E402
from tests.support.crash import Setup, run_child, warm_up  # noqa: E402

SLEEP_TAGS = {"mnemo/now": "2026-11-22T03:00:00+00:00"}
RUN_LIMIT = 600.0


@dataclass
class Scenario:
    name: str
    start: Setup
    jobs: tuple[str, ...]
    tags: dict[str, str] | None = None


def state(setup: Setup) -> dict[str, Any]:
    """The canonical dump and a digest of every sleep file of the namespace (but `sleep/state/`,
    which records the files' stamps as the last sync saw them: a cache, not memory, and the
    `.<file>.*.tmp` leftovers of a killed write, which every reader ignores: `leftovers` counts them)."""
    dump = setup.dump()
    sleep = setup.data_dir / setup.namespace / "sleep"
    files = [p for p in sleep.rglob("*") if p.is_file() and p.relative_to(sleep).parts[0] != "state"] if sleep.is_dir() else []
    files = [p for p in files if not leftover(p)]
    dump["sleep_files"] = sorted((str(p.relative_to(sleep)), hashlib.sha256(p.read_bytes()).hexdigest()) for p in files)
    return dump


def leftover(path: Path) -> bool:
    return path.name.startswith(".") and path.name.endswith(".tmp")


def leftovers(setup: Setup) -> int:
    """Temp files of killed writes left in the namespace folder."""
    return sum(1 for p in (setup.data_dir / setup.namespace).rglob("*") if p.is_file() and leftover(p))


def scenarios(work: Path, vault: Path) -> list[Scenario]:
    sources = [{"kind": "obsidian", "path": str(vault)}]
    first = Setup(work / "start-first", sources)
    ingested = Setup(work / "start-sleep", sources)
    assert ingested.run()
    changed_vault = Path(shutil.copytree(vault, work / "vault-changed"))
    changed = Setup(work / "start-changed", [{"kind": "obsidian", "path": str(changed_vault)}])
    assert changed.run()
    change(changed_vault)
    return [Scenario("first ingest", first, ("ingest_job",)), Scenario("changed-vault ingest", changed, ("ingest_job",)),
            Scenario("sleep", ingested, ("sleep_mode_job",), SLEEP_TAGS)]


def reference(scenario: Scenario, work: Path) -> tuple[dict[str, Any], float, list[tuple[str, int]]]:
    """An uninterrupted run's state and time (in a child), and the write points it passes (in process)."""
    ref = scenario.start.clone(work / f"ref-{scenario.jobs[0]}-{len(list(work.iterdir()))}")
    code, seconds = run_child(ref, RUN_LIMIT, jobs=scenario.jobs, tags=scenario.tags)
    assert code == 0, f"the uninterrupted {scenario.name} failed"
    traced = scenario.start.clone(work / f"trace-{len(list(work.iterdir()))}")
    with faults.recording() as names:
        assert traced.run(scenario.jobs, scenario.tags)
    return state(ref), seconds, faults.occurrences(names)


def named_points(points: list[tuple[str, int]], count: int, draw: random.Random) -> list[str]:
    """`count` passes of write points, one of each kind first, then drawn among the rest."""
    by_kind: dict[str, list[tuple[str, int]]] = {}
    for point in points:
        by_kind.setdefault(point[0].split(":")[0], []).append(point)
    chosen = [draw.choice(group) for _, group in sorted(by_kind.items())][:count]
    rest = [p for p in points if p not in chosen]
    chosen += draw.sample(rest, min(len(rest), count - len(chosen)))
    return [f"{name}@{nth}:kill" for name, nth in chosen]


@dataclass
class Outcome:
    killed: bool
    delay: float
    converged: bool = False
    seconds: float = 0.0
    diff: list[str] | None = None
    leftovers: int = 0


def kill_and_rerun(scenario: Scenario, root: Path, delay: float, fault: str, expected: dict[str, Any]) -> Outcome:
    """Kill a run (a timed kill that came after the run ended is tried again at half the delay,
    three times at most), then run afresh and compare."""
    setup = scenario.start.clone(root)
    for _ in range(3):
        code, _ = run_child(setup, delay, fault, scenario.jobs, scenario.tags)
        if code == -signal.SIGKILL or fault:
            break
        shutil.rmtree(root)
        setup = scenario.start.clone(root)
        delay /= 2
    outcome = Outcome(code == -signal.SIGKILL, delay)
    code, outcome.seconds = run_child(setup, RUN_LIMIT, jobs=scenario.jobs, tags=scenario.tags)
    outcome.diff = ["the fresh run failed or timed out"] if code != 0 else differences(state(setup), expected)
    outcome.converged, outcome.leftovers = not outcome.diff, leftovers(setup)
    setup.close()
    shutil.rmtree(root)
    return outcome


def run(work: Path, vault: Path, named: int, timed: int, seed: int) -> int:
    draw = random.Random(seed)
    warm_up()
    plans = scenarios(work, vault)
    totals = {"named": [0, 0], "timed": [0, 0]}
    longest = (0.0, "")
    for i, scenario in enumerate(plans):
        expected, duration, points = reference(scenario, work)
        share_named = named // len(plans) + (i < named % len(plans))
        share_timed = timed // len(plans) + (i < timed % len(plans))
        print(f"{scenario.name}: uninterrupted run {duration:.1f} s, {len(points)} write-point passes")
        kills = [("named", 2 * RUN_LIMIT, spec) for spec in named_points(points, share_named, draw)]
        kills += [("timed", draw.uniform(0.05, 0.95) * duration, "") for _ in range(share_timed)]
        for j, (kind, delay, fault) in enumerate(kills):
            out = kill_and_rerun(scenario, work / f"k{i}-{j}", delay, fault, expected)
            totals[kind][0] += out.killed
            totals[kind][1] += out.killed and out.converged
            label = fault or f"at {out.delay:5.2f} s"
            longest = max(longest, (out.seconds, f"{scenario.name}, {label.strip()}"))
            print(f"  {kind:5s} {label:55s} killed={out.killed!s:5s} converged={out.converged!s:5s} "
                  f"fresh run {out.seconds:5.1f} s" + (f"  temp leftovers {out.leftovers}" if out.leftovers else "")
                  + (f"  DIFFERS: {out.diff}" if out.diff else ""))
    killed = totals["named"][0] + totals["timed"][0]
    converged = totals["named"][1] + totals["timed"][1]
    print(f"TOTAL: {killed} kills ({totals['named'][0]} at named write points, {totals['timed'][0]} at random moments), "
          f"{converged} converged to the uninterrupted result; longest recovery {longest[0]:.1f} s ({longest[1]})")
    return 0 if converged == killed else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--named", type=int, default=22, help="kills at named write points, spread over the scenarios")
    parser.add_argument("--timed", type=int, default=10, help="kills at random moments, spread over the scenarios")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        vault = Path(shutil.copytree(args.vault, work / "vault"))
        return run(work, vault, args.named, args.timed, args.seed)


if __name__ == "__main__":
    sys.exit(main())
