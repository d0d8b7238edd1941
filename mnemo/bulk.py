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
