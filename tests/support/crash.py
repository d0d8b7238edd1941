"""Crash-consistency harness: run jobs, stop them at write points, compare canonical dumps.

Every job that `build_defs` knows and whose name is in JOBS takes part; a job added later
(consolidation, write-back) is covered by adding its name here and calling
`faults.point(...)` at its write points.
"""

import multiprocessing
import multiprocessing.context
import os
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
import yaml

from mnemo.maintenance.dump import canonical_dump, differences
from mnemo.stores import faults
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from ontology import load_ontology
from tests.support import REPO

# The jobs a crash test runs, in order. sleep_mode_job has write points (`sleep:<file>`, graph
# apply) but is not in the list yet: its outputs carry run times, so its dumps need a clock
# fixed by the test before two runs can be compared.
JOBS = ("ingest_job",)
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}




def persistent_instance(home: Path) -> dg.DagsterInstance:
    """The project's real instance: dagster.yaml linked into `home` (as `make demo` does), with
    its persistent SQLite storage, run queue, pools and run monitoring."""
    home.mkdir(parents=True, exist_ok=True)
    link = home / "dagster.yaml"
    if not link.exists():
        link.symlink_to(REPO / "dagster.yaml")
    return dg.DagsterInstance.from_config(str(home))


@dataclass
class Setup:
    """One data directory reading fixed sources, with its own config file and a persistent Dagster
    instance in `<root>/dagster` that every process running this setup shares."""

    root: Path
    sources: list[dict[str, str]]
    namespace: str = "test"
    instance: dg.DagsterInstance = field(init=False)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.instance = persistent_instance(self.dagster_home)
        config = {"data_dir": str(self.data_dir), "namespaces": {self.namespace: {"sources": self.sources}}, "embedder": {"kind": "hashing"}}
        self.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
        self.instance.add_dynamic_partitions("namespace", [self.namespace])

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def dagster_home(self) -> Path:
        return self.root / "dagster"

    @property
    def config_path(self) -> Path:
        return self.root / "mnemo.yaml"

    def jobs(self, names: tuple[str, ...] = JOBS) -> list[dg.JobDefinition]:
        """The known jobs of `names`, without their asset checks (checks only read)."""
        defs = build_defs(default_resources(str(self.config_path)))
        known = {job.name: job for job in defs.jobs or [] if hasattr(job, "selection")}
        writes = [dg.define_asset_job(f"{name}_writes", selection=known[name].selection.without_checks()) for name in names if name in known]
        merged = dg.Definitions.merge(defs, dg.Definitions(jobs=writes))
        return [merged.resolve_job_def(job.name) for job in writes]

    def run(self, jobs: tuple[str, ...] = JOBS, tags: dict[str, str] | None = None) -> bool:
        """Run every job once, in order; False when one of them fails."""
        for job in self.jobs(jobs):
            result = job.execute_in_process(partition_key=self.namespace, instance=self.instance, run_config=QUIET,
                                            raise_on_error=False, tags=tags)
            if not result.success:
                return False
        return True

    def dump(self) -> dict[str, Any]:
        return canonical_dump(self.data_dir, self.namespace, load_ontology())

    def clone(self, root: Path) -> "Setup":
        """A new setup with the same sources and a copy of this one's data directory."""
        twin = Setup(root, self.sources, self.namespace)
        if self.data_dir.exists():
            shutil.copytree(self.data_dir, twin.data_dir, dirs_exist_ok=True)
        return twin

    def close(self) -> None:
        self.instance.dispose()


def trace(setup: Setup) -> list[tuple[str, int]]:
    """The write points an uninterrupted run from this state passes, as (name, n-th pass)."""
    with faults.recording() as names:
        assert setup.run()
    return faults.occurrences(names)


def crash_then_recover(setup: Setup, name: str, nth: int, reference: dict[str, Any]) -> list[str]:
    """Fail the run at the nth pass of `name`, then run again normally.

    Returns the parts of the dump that the crash had left different from the reference
    (so a test can see that the crash really left work undone).
    """
    with faults.armed(name, nth) as arm:
        finished = setup.run()
    assert arm.seen >= nth, f"write point {name}@{nth} was never reached"
    assert not finished, f"the run went on after the fault at {name}@{nth}"
    undone = differences(setup.dump(), reference)
    assert setup.run(), f"the re-run after a fault at {name}@{nth} failed"
    return undone


@dataclass
class Outcome:
    differ: dict[str, list[str]] = field(default_factory=dict)  # point -> parts still different after the re-run
    undone: int = 0  # crashes that had left the stores different from the reference before the re-run


def converges(start: Setup, work: Path, points: list[tuple[str, int]], reference: dict[str, Any]) -> Outcome:
    """For each point: clone the start state, crash there, recover, compare with the reference."""
    outcome = Outcome()
    for i, (name, nth) in enumerate(points):
        setup = start.clone(work / f"p{i}")
        outcome.undone += bool(crash_then_recover(setup, name, nth, reference))
        diff = differences(setup.dump(), reference)
        if diff:
            outcome.differ[f"{name}@{nth}"] = diff
        shutil.rmtree(setup.root)
    return outcome


def run_in_child(root: str, sources: list[dict[str, str]], fault: str = "", jobs: tuple[str, ...] = JOBS,
                 tags: dict[str, str] | None = None) -> None:
    """The body of a child process that runs the jobs (optionally with $MNEMO_FAULT set)."""
    if fault:
        os.environ[faults.FAULT_ENV] = fault
    if not Setup(Path(root), sources).run(jobs, tags):
        raise SystemExit(1)


def child_context() -> multiprocessing.context.ForkServerContext:
    """Fresh processes forked from a server that has already imported Dagster and the stores."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["tests.support.crash"])
    return context


def warm_up() -> None:
    """Start the fork server (it imports everything once), so child run times are comparable."""
    child = child_context().Process(target=time.sleep, args=(0,))
    child.start()
    child.join()


def run_child(setup: Setup, delay: float, fault: str = "", jobs: tuple[str, ...] = JOBS,
              tags: dict[str, str] | None = None) -> tuple[int | None, float]:
    """Run the jobs in a child process, SIGKILLed after `delay` s if still running; (exit code, run time)."""
    child = child_context().Process(target=run_in_child, args=(str(setup.root), setup.sources, fault, jobs, tags))
    start = time.monotonic()
    child.start()
    child.join(delay)
    if child.is_alive():
        os.kill(child.pid, signal.SIGKILL)
    child.join()
    return child.exitcode, time.monotonic() - start


def kill_at(setup: Setup, delay: float, fault: str = "") -> tuple[bool, float]:
    """Start the jobs in a child process and SIGKILL it after `delay` s; (was it killed, run time)."""
    code, seconds = run_child(setup, delay, fault)
    return code == -signal.SIGKILL, seconds
