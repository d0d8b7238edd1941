"""How much of the host other work took while something was timed: the CPU seconds of every process
outside the ones under test (the test's own process tree and the PostgreSQL server it started),
read from /proc, so a figure measured on a shared machine says how loaded the machine was."""

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def read_processes() -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds so far) of every process that can be read now."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        except OSError:  # ended while being read
            continue
        found[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK)
    return found


def descendants(processes: dict[int, tuple[int, float]], roots: Iterable[int]) -> set[int]:
    tree = set(roots)
    grew = True
    while grew:
        children = {pid for pid, (parent, _) in processes.items() if parent in tree and pid not in tree}
        tree |= children
        grew = bool(children)
    return tree


@dataclass
class OtherWork:
    """CPU seconds taken by processes outside `roots` and their descendants between `start()` and
    `stop()` (a process of other work that began and ended in between is not seen)."""

    roots: list[int]
    started: float = 0.0
    before: dict[int, float] = field(default_factory=dict)

    def start(self) -> None:
        self.started, self.before = time.monotonic(), self._others()

    def stop(self) -> str:
        """`X.X cores of N taken by other work` over the time since `start()`."""
        seconds = time.monotonic() - self.started
        used = sum(cpu - self.before.get(pid, 0.0) for pid, cpu in self._others().items())
        return f"other work took {used / max(seconds, 1e-9):.1f} of {os.cpu_count()} cores"

    def _others(self) -> dict[int, float]:
        processes = read_processes()
        ours = descendants(processes, [os.getpid(), *self.roots])
        return {pid: cpu for pid, (_, cpu) in processes.items() if pid not in ours}
