"""The namespace lock: every writing step shares it; backup, restore and import take it alone.

It is an advisory `flock` on `<data_dir>/.<namespace>.lock`, outside the namespace folder
so that a restore can swap the folder while holding it. The kernel drops it when its
process ends, however it ends: a killed run never leaves a lock that blocks the next one.
"""

import fcntl
import functools
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mnemo.errors import StoreLocked

WRITER_WAIT_SECONDS = 600.0
P = ParamSpec("P")
R = TypeVar("R")
_held = threading.local()


def lock_path(root: Path) -> Path:
    """The lock file of the namespace whose folder is `root`."""
    return root.parent / f".{root.name}.lock"


@contextmanager
def namespace_lock(root: Path, exclusive: bool = False, wait_seconds: float = WRITER_WAIT_SECONDS) -> Iterator[None]:
    """Hold the namespace's lock (shared for writers, exclusive for whole-namespace work).

    A thread that holds it exclusively (an import rebuilding the stores) passes its own
    writers through.
    """
    path = lock_path(Path(root)).resolve()
    exclusive_here: set[Path] = _held.__dict__.setdefault("exclusive", set())
    if path in exclusive_here:
        yield
        return
    holder = "a backup, restore or import" if not exclusive else "a running writer"
    with file_lock(path, exclusive, wait_seconds, f"namespace {Path(root).name!r} is busy with {holder}"):
        if exclusive:
            exclusive_here.add(path)
        try:
            yield
        finally:
            exclusive_here.discard(path)


@contextmanager
def file_lock(path: Path, exclusive: bool, wait_seconds: float, busy: str) -> Iterator[None]:
    """An advisory flock on `path` (created when missing), waited for up to `wait_seconds`;
    StoreLocked(`busy`) when it is not free by then. The kernel drops it when the process ends."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait_seconds
        mode = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        while True:
            try:
                fcntl.flock(fd, mode)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreLocked(f"{busy} (waited {wait_seconds:g} s)") from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


def writer(root_of: Callable[..., Path]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a writing function: it runs holding the namespace lock shared.

    `root_of` receives the call's first argument (the store or the NamespaceFiles) and
    returns the namespace folder.
    """

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
            first: Any = args[0]
            with namespace_lock(root_of(first)):
                return fn(*args, **kwargs)

        return wrapped

    return decorate
