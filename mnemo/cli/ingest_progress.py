"""How `mnemo ingest` shows a run as it goes. In a terminal: a bar of the run's steps per namespace
and, while passages are embedded, a bar of them with the rate and the time left. Anywhere else (a
pipe, a log file, a service): plain timestamped lines, one per step and check, the embedding's
count every few seconds, and a line at least every `QUIET_SECONDS` while a step runs."""

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

if TYPE_CHECKING:
    from mnemo_dagster.jobs.launch import StepEvent

QUIET_SECONDS = 10.0  # a log never goes longer than this without a line while a run goes on
EMBEDDING_SECONDS = 5.0  # how often a log gets the embedding's count
Clock = Callable[[], float]


@dataclass
class Rate:
    """Passages a second since the embedding started, and the time left at that pace."""

    clock: Clock = time.monotonic
    start: tuple[float, int] | None = None

    def describe(self, done: int, total: int) -> str:
        now = self.clock()
        if self.start is None or done < self.start[1]:
            self.start = (now, done)
        elapsed, made = now - self.start[0], done - self.start[1]
        if made <= 0 or elapsed <= 0:
            return f"{done}/{total} passages embedded"
        per_second = made / elapsed
        return f"{done}/{total} passages embedded, {per_second:.1f}/s, {_duration((total - done) / per_second)} left"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(round(seconds)), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def _verdict(event: "StepEvent") -> str:
    """A finished step's or a check's line, after the namespace."""
    why = f": {event.message}" if event.message else ""
    if event.kind == "check":
        return f"check {event.step} {event.status}{why}"
    mark = "done" if event.status == "succeeded" else "failed"
    return f"{event.step} {mark} in {event.seconds or 0:.1f} s{why}"


class TerminalProgress:
    """A bar per namespace, advanced by the run's step events; a line per finished step and check;
    while passages are embedded, a bar of them with the rate and the time left."""

    def __init__(self, progress: Progress, clock: Clock = time.monotonic) -> None:
        self.progress, self.clock = progress, clock
        self.tasks: dict[str, TaskID] = {}
        self.embedding: dict[str, tuple[TaskID, Rate]] = {}

    def __call__(self, event: "StepEvent") -> None:
        task = self.tasks.get(event.namespace)
        if task is None:
            task = self.tasks[event.namespace] = self.progress.add_task(event.namespace, total=event.steps, rate="")
        if event.kind == "embedding":
            self._embedding(event)
        elif event.status == "started":
            self.progress.update(task, description=f"{event.namespace}: {event.step}")
        else:
            style = "green" if event.status in ("succeeded", "passed") else "bold red"
            line = escape(f"{event.namespace} {_verdict(event)}")
            self.progress.console.print(f"[{style}]{line}[/]" if event.kind == "check" else line)
            if event.kind == "step":
                self.progress.advance(task)

    def _embedding(self, event: "StepEvent") -> None:
        if event.namespace not in self.embedding:
            task = self.progress.add_task(f"{event.namespace}: passages embedded", total=event.total, rate="")
            self.embedding[event.namespace] = (task, Rate(self.clock))
        task, rate = self.embedding[event.namespace]
        said = rate.describe(event.done, event.total).split(", ", 1)  # the count shows in its own column
        self.progress.update(task, completed=event.done, total=event.total, rate=said[1] if len(said) > 1 else "")


@dataclass
class LogLines:
    """Timestamped plain lines for a pipe or a log file (see the module's docstring)."""

    write: Callable[[str], None]
    clock: Clock = time.monotonic
    quiet_seconds: float = QUIET_SECONDS
    running: dict[str, tuple[str, float]] = field(default_factory=dict)  # namespace -> (step, since)
    rates: dict[str, Rate] = field(default_factory=dict)
    said_at: float = 0.0
    counted_at: float = float("-inf")
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, event: "StepEvent") -> None:
        if event.kind == "embedding":
            if event.done not in (0, event.total) and self.clock() - self.counted_at < EMBEDDING_SECONDS:
                return
            self.counted_at = self.clock()
            rate = self.rates.setdefault(event.namespace, Rate(self.clock))
            self.say(f"{event.namespace} {event.step}: {rate.describe(event.done, event.total)}")
        elif event.status == "started":
            self.running[event.namespace] = (event.step, self.clock())
            self.say(f"{event.namespace} {event.step} started")
        else:
            if event.kind == "step":
                self.running.pop(event.namespace, None)
            self.say(f"{event.namespace} {_verdict(event)}")

    def say(self, line: str) -> None:
        with self.lock:
            self.said_at = self.clock()
            self.write(f"{datetime.now().strftime('%Y-%m-%d %H:%M:%S')} {line}")

    def tick(self) -> None:
        """A line for each running step when nothing was said for `quiet_seconds`."""
        if self.clock() - self.said_at < self.quiet_seconds:
            return
        for namespace, (step, since) in list(self.running.items()):
            self.say(f"{namespace} {step} still running ({self.clock() - since:.0f} s)")


@contextmanager
def run_progress(console: Console) -> Iterator[Callable[["StepEvent"], None]]:
    """What to report a run's events to: bars when `console` is a terminal, timestamped lines
    otherwise."""
    if not console.is_terminal:
        lines = LogLines(lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True))
        with _ticking(lines):
            yield lines
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
               TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        yield TerminalProgress(progress)


@contextmanager
def _ticking(lines: LogLines) -> Iterator[None]:
    stop = threading.Event()

    def tick() -> None:
        while not stop.wait(1.0):
            lines.tick()

    ticker = threading.Thread(target=tick, daemon=True, name="ingest-log-lines")
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
