"""What one process keeps of one namespace between calls, and when it reads the files again.

A `NamespaceSession` belongs to whoever works on the namespace for a while — a `MemoryClient`
(and so the CLI, the HTTP and MCP servers and the chat hooks), the Dagster config resource of a
run, an evaluation — and reaches the code that reads through `NamespaceFiles.session`. It keeps
the parsed Parquet tables, the merged facts, sleep mode's overlays and what recall reads on
every call (the sleep view, speaker profiles, themes, the graph view), each under a name with
the version it was read at: the stamps (size, modification time, inode) of the files it came
from. A value is handed out again while its files' stamps are the same; a writer in this
process keeps what it wrote or drops it (`drop`, `invalidate`), and a writer in another
process changes the stamps, so the next read parses the files again.

What is kept lives as long as the process and is read often: after keeping a new value the
session moves every object alive out of later cyclic collections (`runtime.keep_out_of_collections`),
so the full collections an eager recall or an ingest step triggers do not walk it again.
"""

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any, TypeVar

from mnemo.runtime import keep_out_of_collections

T = TypeVar("T")
# what recall derives from sleep mode's files, kept under these names (a sleep run drops them)
SLEEP_VIEW, SPEAKER_PROFILES, THEMES = "sleep view", "speaker profiles", "themes"


def mtime_size(path: Path) -> tuple[int, int] | None:
    """The file's modification time and size (None when absent): the version of a file another
    process rewrites in place of the old one."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_mtime_ns, stat.st_size


class NamespaceSession:
    """One namespace's kept values, by name, each with the version it was read at."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.lock = threading.RLock()  # one reader builds a value at a time (the HTTP server's threads share a client)
        self._kept: dict[Hashable, tuple[Any, Any]] = {}

    def entry(self, name: Hashable) -> tuple[Any, Any] | None:
        """(version, value) as last kept under `name`, whatever the files are now."""
        return self._kept.get(name)

    def kept(self, name: Hashable, version: Any) -> Any | None:
        """The value kept under `name` when it was kept at `version`; else None."""
        entry = self._kept.get(name)
        return entry[1] if entry is not None and entry[0] == version else None

    def current(self, name: Hashable, version: Any, build: Callable[[], T]) -> T:
        """The value kept under `name` at `version`, built (and kept) when there is none."""
        with self.lock:
            entry = self._kept.get(name)
            if entry is not None and entry[0] == version:
                return entry[1]
            value = build()
            self.keep(name, version, value)
            return value

    def fresh(self, name: Hashable, seconds: float, build: Callable[[], T]) -> T:
        """The value kept under `name` if it was built less than `seconds` ago; else built again."""
        with self.lock:
            entry = self._kept.get(name)
            if entry is not None and time.monotonic() - entry[0] < seconds:
                return entry[1]
            value = build()
            self.keep(name, time.monotonic(), value)
            return value

    def keep(self, name: Hashable, version: Any, value: Any) -> None:
        """Keep `value` as what `name` holds at `version` (just read, or just written)."""
        self._kept[name] = (version, value)
        keep_out_of_collections()

    def drop(self, *names: Hashable) -> None:
        """Forget what is kept under `names` (the next read parses their files again)."""
        for name in names:
            self._kept.pop(name, None)

    def sleep_wrote(self) -> None:
        """Forget what recall derived from sleep mode's files (a sleep run in this process wrote them)."""
        self.drop(SLEEP_VIEW, SPEAKER_PROFILES, THEMES)

    def invalidate(self) -> None:
        """Forget everything kept (an ingest or sleep run in this process wrote the namespace)."""
        with self.lock:
            self._kept.clear()


class Sessions:
    """The sessions of the namespaces one long-lived owner works on, one per namespace folder: the
    `limit` most recently used are kept, the others dropped with all they hold. The Dagster config
    resource holds one, so the runs a process executes one after another (an evaluation, a test,
    a benchmark executing jobs in process) read what the last run read or wrote only when its
    files changed; a run launched in a process of its own starts with none."""

    def __init__(self, limit: int = 8) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._sessions: OrderedDict[Path, NamespaceSession] = OrderedDict()

    def of(self, root: Path) -> NamespaceSession:
        """The session of the namespace whose folder is `root` (a new one the first time)."""
        root = Path(root)
        with self._lock:
            session = self._sessions.pop(root, None) or NamespaceSession(root)
            self._sessions[root] = session
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
            return session

    def drop(self, root: Path) -> None:
        """Forget the namespace's session (its folder was deleted or replaced)."""
        with self._lock:
            self._sessions.pop(Path(root), None)
