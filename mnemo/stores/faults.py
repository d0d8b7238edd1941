"""Named write points: the places where mnemo makes something durable.

The core calls `point("graph.copy_nodes:Entity")` just before each write that others can
see (a rename into place, a Kùzu COPY or DELETE, a LanceDB merge). Normally that is a
no-op. A test can record which points a run passes, or arm one point so that its n-th pass
fails, either in this process (`armed`) or in a child process through the `MNEMO_FAULT`
environment variable (`NAME[@N][:kill]`; `kill` ends the process with SIGKILL instead of
raising). Crash-consistency tests use this to stop a run at every write point in turn.
"""

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

FAULT_ENV = "MNEMO_FAULT"


class InjectedFault(Exception):
    """Raised by an armed write point (never raised unless a test asks for it)."""


@dataclass
class _Arm:
    name: str
    nth: int = 1
    kill: bool = False
    seen: int = 0


_lock = threading.Lock()
_arms: list[_Arm] = []
_traces: list[list[str]] = []


def parse_spec(spec: str) -> _Arm:
    """`name`, `name@3`, `name@3:kill` -> an arm for the 3rd pass of `name`."""
    kill = spec.endswith(":kill")
    spec = spec.removesuffix(":kill")
    name, _, nth = spec.rpartition("@") if "@" in spec else (spec, "", "1")
    if not name or not nth.isdigit() or int(nth) < 1:
        raise ValueError(f"invalid {FAULT_ENV} value {spec!r}: use NAME, NAME@N or NAME@N:kill")
    return _Arm(name, int(nth), kill)


_env: tuple[str, _Arm | None] = ("", None)


def _from_env() -> _Arm | None:
    """The arm named by $MNEMO_FAULT (parsed once, kept while the value is unchanged)."""
    global _env
    spec = os.environ.get(FAULT_ENV, "")
    if spec != _env[0]:
        _env = (spec, parse_spec(spec) if spec else None)
    return _env[1]


def point(name: str, writes: int = 1) -> None:
    """Mark a write point about to write `writes` rows; fail here if a test armed it for this pass.

    A point that writes nothing (writes=0) is not passed at all, so traces list only real writes.
    """
    if writes == 0 or not (_arms or _traces or os.environ.get(FAULT_ENV)):
        return
    with _lock:
        for trace in _traces:
            trace.append(name)
        fire = [arm for arm in [*_arms, _from_env()] if arm is not None and arm.name == name]
        for arm in fire:
            arm.seen += 1
        hit = next((arm for arm in fire if arm.seen == arm.nth), None)
    if hit is None:
        return
    if hit.kill:
        os.kill(os.getpid(), signal.SIGKILL)
    raise InjectedFault(f"injected fault at write point {name} (pass {hit.nth})")


@contextmanager
def armed(name: str, nth: int = 1) -> Iterator[_Arm]:
    """Make the nth pass of write point `name` raise InjectedFault while the block runs."""
    arm = _Arm(name, nth)
    with _lock:
        _arms.append(arm)
    try:
        yield arm
    finally:
        with _lock:
            _arms.remove(arm)


@contextmanager
def recording() -> Iterator[list[str]]:
    """Collect the names of the write points passed while the block runs, in order."""
    trace: list[str] = []
    with _lock:
        _traces.append(trace)
    try:
        yield trace
    finally:
        with _lock:
            _traces.remove(trace)


def occurrences(trace: list[str]) -> list[tuple[str, int]]:
    """Each pass of a trace as (name, n): the n-th pass of that name."""
    seen: dict[str, int] = {}
    out = []
    for name in trace:
        seen[name] = seen.get(name, 0) + 1
        out.append((name, seen[name]))
    return out
