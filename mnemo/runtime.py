"""Bulk work on many small objects."""

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collections_paused() -> Iterator[None]:
    """No cyclic garbage collection inside. Reading or building a namespace's tables makes
    hundreds of thousands of small containers (and no cycles); with a large heap already
    there, every collection the allocations trigger would walk all of it for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def keep_out_of_collections() -> None:
    """Leave every object alive now out of later cyclic collections (`gc.freeze`). Called once
    objects exist that live as long as the process (a namespace's tables parsed into this
    process's caches, the facts an extraction keeps, imported libraries, a loaded model): every
    full collection would otherwise walk them again (0.3-0.7 s each at 10k notes). Frozen
    objects are still freed when nothing refers to them any more."""
    gc.freeze()
