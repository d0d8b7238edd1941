"""Recovery from a run whose process died (SIGKILL, out of memory, a reboot).

Every run records the process that executes it in its tags (`mnemo/worker`: host, pid and the
process's start time, so a reused pid is not mistaken for the run). A run that starts, and every
run while it waits, looks for runs of its instance that are still in progress or still hold
concurrency slots while their process on this host is gone: it marks them failed and frees their
slots (the `graph_writer` pool), so a killed run never blocks the next one. Runs of other hosts,
and runs without the tag, are left to Dagster's run monitoring (dagster.yaml).
"""

import os
import select
import signal
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

import dagster as dg

WORKER_TAG = "mnemo/worker"
GUARD_INTERVAL_SECONDS = 2.0
TERMINATION_GRACE_SECONDS = 5.0
_IN_PROGRESS = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]


@dataclass(frozen=True)
class Worker:
    """The process that executes a run: host name, pid and the kernel's start time of it."""

    host: str
    pid: int
    started: str

    @property
    def tag(self) -> str:
        return f"{self.host}:{self.pid}:{self.started}"

    @staticmethod
    def parse(tag: str) -> "Worker | None":
        parts = tag.rsplit(":", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            return None
        host, pid, started = parts
        return Worker(host, int(pid), started)


def process_start(pid: int) -> str:
    """The start time of a process in clock ticks since boot ('' where /proc does not tell)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return ""
    return stat.rsplit(")", 1)[-1].split()[19]


def this_worker() -> Worker:
    pid = os.getpid()
    return Worker(socket.gethostname(), pid, process_start(pid))


def is_gone(worker: Worker) -> bool:
    """True when the worker runs on this host and its process no longer exists (or the pid now
    belongs to a process started at another time)."""
    if worker.host != socket.gethostname():
        return False
    try:
        os.kill(worker.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return bool(worker.started) and process_start(worker.pid) not in ("", worker.started)


def _dead_runs(instance: dg.DagsterInstance, exclude: str | None) -> list[dg.DagsterRun]:
    """Runs in progress, or holding slots, whose recorded worker process is gone."""
    storage = instance.event_log_storage
    holding = storage.get_concurrency_run_ids() if storage.supports_global_concurrency_limits else set()
    records = list(instance.get_run_records(dg.RunsFilter(statuses=_IN_PROGRESS)))
    if holding:
        records += instance.get_run_records(dg.RunsFilter(run_ids=sorted(holding)))
    dead: dict[str, dg.DagsterRun] = {}
    for record in records:
        run = record.dagster_run
        worker = Worker.parse(run.tags.get(WORKER_TAG, ""))
        if run.run_id == exclude:
            continue
        if (run.is_finished and run.run_id in holding) or (worker is not None and is_gone(worker)):
            dead[run.run_id] = run
    return list(dead.values())


def release_dead_runs(instance: dg.DagsterInstance, exclude: str | None = None) -> list[str]:
    """Mark runs whose process is gone failed and free their concurrency slots; their ids."""
    released = []
    for run in _dead_runs(instance, exclude):
        if not run.is_finished:
            instance.report_run_failed(run, f"mnemo: the process of this run ({run.tags.get(WORKER_TAG)}) is gone")
        if instance.event_log_storage.supports_global_concurrency_limits:
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        released.append(run.run_id)
    return released


class RunGuard:
    """For the life of one run: its worker tag, a first release of dead runs, and a thread that
    releases them again while the run waits for a pool slot and ends the run on SIGTERM or SIGINT
    when Dagster does not. (Dagster's in-process execution only notes a signal that arrives
    between steps, so a run waiting for a slot ignored it; the thread learns of it through
    Python's signal wakeup fd, which every handled signal writes to.)"""

    def __init__(self, instance: dg.DagsterInstance, run_id: str) -> None:
        self.instance, self.run_id = instance, run_id
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="mnemo-run-guard", daemon=True)
        self._wakeup: tuple[socket.socket, socket.socket] | None = None

    def start(self) -> list[str]:
        self.instance.add_run_tags(self.run_id, {WORKER_TAG: this_worker().tag})
        released = release_dead_runs(self.instance, exclude=self.run_id)
        self._wakeup = _signal_pipe()
        self._thread.start()
        return released

    def stop(self) -> None:
        """End the watch now: the thread is woken from its wait (else the run's end would wait for
        the rest of the interval, up to 2 s a run)."""
        self._stop.set()
        if self._wakeup is not None:
            _wake(self._wakeup[1])
        if self._thread.is_alive():
            self._thread.join(timeout=GUARD_INTERVAL_SECONDS * 2)
        if self._wakeup is not None:
            signal.set_wakeup_fd(-1)
            for end in self._wakeup:
                end.close()

    def _watch(self) -> None:
        while True:
            if self._signalled():
                self._end_if_still_running()
                return
            if self._stop.is_set():
                return
            release_dead_runs(self.instance, exclude=self.run_id)

    def _signalled(self) -> bool:
        """Wait up to the guard's interval; True when SIGTERM or SIGINT arrived meanwhile."""
        if self._wakeup is None:
            self._stop.wait(GUARD_INTERVAL_SECONDS)
            return False
        reader = self._wakeup[0]
        if not select.select([reader], [], [], GUARD_INTERVAL_SECONDS)[0]:
            return False
        try:
            got = reader.recv(64)
        except OSError:  # closed by stop() while waiting
            return False
        return any(n in (signal.SIGTERM, signal.SIGINT) for n in got)

    def _end_if_still_running(self) -> None:
        """Give Dagster a moment to stop the run itself (it does inside a step); otherwise mark
        the run canceled, free its slots and end the process as SIGTERM would."""
        if self._stop.wait(TERMINATION_GRACE_SECONDS):
            return
        run = self.instance.get_run_by_id(self.run_id)
        if run is not None and not run.is_finished:
            self.instance.report_run_canceled(run, "mnemo: stopped by a signal while waiting")
        self.instance.event_log_storage.free_concurrency_slots_for_run(self.run_id)
        os._exit(128 + signal.SIGTERM)


def _wake(writer: socket.socket) -> None:
    """A zero byte on the wakeup pipe: no signal's number, so the watch only looks at its stop flag."""
    try:
        writer.send(b"\0")
    except BlockingIOError:  # the pipe is full: the thread has bytes to read already
        pass


def _signal_pipe() -> tuple[socket.socket, socket.socket] | None:
    """A socket pair whose write end is Python's signal wakeup fd (main thread only, and only when
    nothing else uses the wakeup fd); None otherwise."""
    if threading.current_thread() is not threading.main_thread():
        return None
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    if previous != -1:
        signal.set_wakeup_fd(previous)
        reader.close()
        writer.close()
        return None
    return reader, writer


_guards: dict[str, RunGuard] = {}


def guard_run(instance: dg.DagsterInstance | None, run_id: str | None) -> list[str]:
    """Start the guard of a run (once, however many resources ask for it; nothing outside a run);
    the ids of the dead runs it released."""
    if instance is None or not run_id or run_id in _guards:
        return []
    _guards[run_id] = RunGuard(instance, run_id)
    return _guards[run_id].start()


def end_guard(run_id: str | None) -> None:
    guard = _guards.pop(run_id or "", None)
    if guard is not None:
        guard.stop()
