"""How much of the host other work took while something was timed: the CPU seconds the whole host
spent (/proc/stat) less those of the processes under test (the test's own process tree and the
PostgreSQL server it started, with the children they reaped), so a figure measured on a shared
machine says how loaded the machine was, short-lived commands included."""

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def read_processes(reaped: bool = False) -> dict[int, tuple[int, float]]:
    """pid -> (parent pid, CPU seconds so far) of every process that can be read now; with
    `reaped`, the CPU seconds include those of the children it has waited for."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        except OSError:  # ended while being read
            continue
        utime, stime, cutime, cstime = (int(f) for f in fields[11:15])
        ticks = utime + stime + (cutime + cstime if reaped else 0)
        found[int(entry.name)] = (int(fields[1]), ticks / TICK)
    return found


def host_busy_seconds() -> float:
    """CPU seconds the whole host has spent on anything but idling and waiting for disks."""
    fields = [int(f) for f in Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()[1:]]
    idle, iowait = fields[3], fields[4]
    return (sum(fields[:8]) - idle - iowait) / TICK


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
    """CPU seconds the host spent outside `roots` (and this process) and their descendants between
    `start()` and `stop()`: all of it, less what those processes took (with children they reaped)."""

    roots: list[int]
    started: float = 0.0
    busy: float = 0.0
    before: dict[int, float] = field(default_factory=dict)

    def start(self) -> None:
        self.started, self.busy, self.before = time.monotonic(), host_busy_seconds(), self._ours()

    def stop(self) -> str:
        """`other work took X.X of N cores` over the time since `start()`."""
        seconds = time.monotonic() - self.started
        busy = host_busy_seconds() - self.busy
        ours = sum(cpu - self.before.get(pid, 0.0) for pid, cpu in self._ours().items())
        return f"other work took {max(busy - ours, 0.0) / max(seconds, 1e-9):.1f} of {os.cpu_count()} cores"

    def _ours(self) -> dict[int, float]:
        processes = read_processes(reaped=True)
        ours = descendants(processes, [os.getpid(), *self.roots])
        return {pid: cpu for pid, (_, cpu) in processes.items() if pid in ours}
