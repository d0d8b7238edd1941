"""Which embedded graph database a namespace's graph runs on: Kùzu (`kuzu`, the default) or
LadybugDB (`ladybug`, Kùzu's maintained continuation). Both run mnemo's DDL and Cypher through the
same Python API; this module is the one place that loads either.

The two cannot share a process: each registers the same native types, and loading the second
fails (and the process then crashes on exit), so a process loads only the engine it was asked for
first and refuses the other with a `GraphEngineError`.

Kùzu lets no other process open a database one process writes, nor write one other processes read;
mnemo's readers wait for its writers, and the reverse, on that. LadybugDB lets other processes open
a database read-only while one writes it (and a reader held across the writer's checkpoint is a
hazard its maintainers track), so on LadybugDB mnemo holds a `flock` beside the database file while
it is open: shared to read, exclusive to write, and the same waiting follows.

Neither reads the other's files (each refuses a file it did not write, leaving it as it is). The
engine that built a graph is recorded in the database file itself: its first four bytes are the
engine's signature (`KUZU` or `LBUG`). Opening a graph built by the other engine than the one
configured is refused with a message to rebuild it (`mnemo doctor --rebuild-graph`).
"""

import functools
import importlib
import sys
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, get_args

from mnemo.errors import GraphEngineError
from mnemo.stores.locks import file_lock

if TYPE_CHECKING:  # both engines have Kùzu's API; it types the connections of either
    from kuzu import Connection, Database, QueryResult
else:
    Connection = Database = QueryResult = Any

EngineName = Literal["kuzu", "ladybug"]
ENGINES: tuple[str, ...] = get_args(EngineName)
DEFAULT_ENGINE: EngineName = "kuzu"
_SIGNATURES = {b"KUZU": "kuzu", b"LBUG": "ladybug"}  # the first bytes of each engine's database file

__all__ = ["Connection", "Database", "QueryResult", "EngineName", "ENGINES", "DEFAULT_ENGINE",
           "engine_module", "open_database", "open_lock_path", "built_with", "check_built_with"]


def engine_module(name: str) -> ModuleType:
    """The Python module of the engine `name`, loaded on first use; refused when this process
    already loaded the other engine (loading both crashes the process)."""
    if name not in ENGINES:
        raise GraphEngineError(f"unknown graph engine {name!r}: use one of {', '.join(ENGINES)}")
    loaded = [other for other in ENGINES if other != name and other in sys.modules]
    if loaded:
        raise GraphEngineError(
            f"this process already loaded the {loaded[0]} graph engine and cannot load {name} too "
            "(the two cannot share a process): run it in a process of its own"
        )
    return importlib.import_module(name)


def open_database(engine: str, path: Path, read_only: bool, buffer_pool_size: int) -> Database:
    """The database at `path` opened by `engine` (refused when the other engine built it). On
    LadybugDB, mnemo's lock beside the file is taken first (without waiting: `StoreLocked` when
    another process holds it) and let go when the database is closed."""
    module = engine_module(engine)
    check_built_with(path, engine)
    if engine == "kuzu":  # Kùzu locks the file itself
        return module.Database(str(path), read_only=read_only, buffer_pool_size=buffer_pool_size)
    guard = ExitStack()
    busy = f"graph database {path} is in use by another process"
    guard.enter_context(file_lock(open_lock_path(path), not read_only, 0.0, busy))
    try:
        db = _locked(module)(str(path), read_only=read_only, buffer_pool_size=buffer_pool_size)
    except BaseException:
        guard.close()
        raise
    db.guard = guard
    return db


def open_lock_path(path: Path) -> Path:
    """The lock file mnemo holds beside a LadybugDB database while it is open."""
    return path.with_name(path.name + ".lock")


@functools.cache
def _locked(module: ModuleType) -> type:
    """The engine's database class, whose `close` also lets go of mnemo's lock beside the file."""

    class LockedDatabase(module.Database):  # type: ignore[name-defined]
        guard: ExitStack | None = None

        def close(self) -> None:
            try:
                super().close()
            finally:
                if self.guard is not None:
                    self.guard.close()
                    self.guard = None

    return LockedDatabase


def built_with(path: Path) -> str | None:
    """The engine that wrote the database file at `path`, read from its signature; None when there
    is no file yet, it is too short to tell, or it is no graph either engine wrote."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except (FileNotFoundError, IsADirectoryError):
        return None
    return _SIGNATURES.get(head)


def check_built_with(path: Path, engine: str) -> None:
    """Nothing when the graph at `path` is absent, unrecognised or built by `engine`; else a
    `GraphEngineError` saying to rebuild it."""
    found = built_with(path)
    if found is not None and found != engine:
        raise GraphEngineError(
            f"graph database {path} was built with {found}, but graph.engine is {engine}: rebuild it "
            f"with `mnemo doctor --rebuild-graph` (it is made again from the namespace's files), "
            f"or set graph.engine back to {found}"
        )
