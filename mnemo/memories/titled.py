"""Titled memories: `save` a memory by title, then `read`, `exists`, `append` and forget it by title.

A titled memory is an inbox memory with a `title` and the `slug` derived from it; the slug is
unique within the memory's scope, so saving the same title (or one with the same slug) in the
same scope again replaces the memory's text: the earlier text is kept in its `history`, and its
passages in the chunks table are replaced at once (the replaced passage is no longer recalled).

Its id, `mem_<key>_<stamp>`, holds a digest of its scope and slug (`key`, so it is found by one
glob) and of the time of its first save (`stamp`, so a memory saved again after being forgotten
is a new one, which the old one's tombstone does not hide).

Saves, appends and forgets of titled memories hold one exclusive lock per namespace (a file
lock, `inbox/.titled.lock`, dropped by the kernel if the process dies) from reading the memory
to putting its passages in the chunks table: two processes saving the same title at once end
with one memory, the later save's text current and the earlier one in its history.
"""

import datetime as dt
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from mnemo.errors import MnemoError
from mnemo.memories.remember import check_scope, make_recallable, new_memory
from mnemo.refs import refs_in
from mnemo.sources.memory_files import (
    Memory,
    inbox_dir,
    iso_utc,
    read_memory,
    store_memory,
    titled_id_glob,
    titled_memory_id,
)
from mnemo.stores.embedders import Embedder
from mnemo.stores.locks import file_lock
from mnemo.stores.vectors import VectorStore

TITLE_MAX = 200
LOCK_WAIT_SECONDS = 30.0
_RUN = re.compile(r"\W{2,}")
_CONTROL = {"Cc", "Cs"}  # control characters, and unpaired surrogates (not text at all)


def check_title(title: Any) -> str:
    """The title when it follows the rules, else a MnemoError naming the rule it breaks: non-empty,
    at most TITLE_MAX characters, no control character (NUL, newline, tab ...), no leading or
    trailing non-word character, no run of several non-word characters (word characters:
    letters, digits and `_`, in any script)."""
    if not isinstance(title, str) or not title.strip():
        raise MnemoError("invalid title: it is empty")
    if len(title) > TITLE_MAX:
        raise MnemoError(f"invalid title {title[:40]!r}...: longer than {TITLE_MAX} characters")
    control = next((c for c in title if unicodedata.category(c) in _CONTROL), None)
    if control is not None:
        raise MnemoError(f"invalid title {ascii(title)}: it has a control character ({ascii(control)}); "
                         "a title is one line of text")
    if not re.match(r"\w", title[0]):
        raise MnemoError(f"invalid title {title!r}: it starts with a non-word character ({title[0]!r})")
    if not re.match(r"\w", title[-1]):
        raise MnemoError(f"invalid title {title!r}: it ends with a non-word character ({title[-1]!r})")
    run = _RUN.search(title)
    if run:
        raise MnemoError(f"invalid title {title!r}: it has a run of several non-word characters ({run.group()!r})")
    return title


def title_slug(title: str) -> str:
    """`Trip to Oslo` -> `trip-to-oslo`: the title case-folded, each non-word character a `-`."""
    return re.sub(r"\W", "-", check_title(title).casefold())


class TitledMemories:
    """The titled memories of one namespace; each change is recallable when it returns."""

    def __init__(self, root: Path, namespace: str, vectors: VectorStore, embedder: Embedder, max_words: int) -> None:
        self.root, self.namespace = Path(root), namespace
        self.vectors, self.embedder, self.max_words = vectors, embedder, max_words

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The namespace's titled-memory lock (exclusive, across processes)."""
        with file_lock(inbox_dir(self.root) / ".titled.lock", True, LOCK_WAIT_SECONDS,
                       "another save of a titled memory is running"):
            yield

    def stored(self, title: str, scope: str) -> Memory | None:
        """The memory saved under this title in this scope, expired or not; None when there is none."""
        pattern = titled_id_glob(check_scope(scope), title_slug(title))
        found = [read_memory(p) for p in inbox_dir(self.root).glob(pattern)]
        return max(found, key=lambda m: m.created) if found else None

    def find(self, title: str, scope: str) -> Memory | None:
        """The memory of this title in this scope, unless there is none or it has expired."""
        memory = self.stored(title, scope)
        return None if memory is None or memory.expired() else memory

    def read(self, title: str, scope: str) -> Memory:
        memory = self.find(title, scope)
        if memory is None:
            raise MnemoError(f"no memory titled {title!r} in scope {scope!r}")
        return memory

    def save(self, title: str, text: str, scope: str, expires_at: str | dt.datetime | None = None,
             ttl: float | None = None) -> Memory:
        """Create the memory of this title, or replace its text (the old text joins its history)."""
        slug = title_slug(title)
        fresh = new_memory(self.namespace, text, None, expires_at, ttl, scope)
        with self.lock():
            current = self.stored(title, scope)
            if current is None:
                memory = replace(fresh, id=titled_memory_id(self.namespace, scope, slug, fresh.created), title=title,
                                 slug=slug)
            elif current.expired():  # not purged yet: its id is reused, its expired text is not kept
                memory = replace(fresh, id=current.id, title=title, slug=slug)
            else:
                memory = replace(current, text=fresh.text, entities=fresh.entities, title=title,
                                 expires_at=fresh.expires_at, history=_history(current, fresh.created))
            return self._write(memory)

    def append(self, title: str, text: str, scope: str) -> Memory:
        """Add text to the end of the memory of this title (the text before joins its history)."""
        if not isinstance(text, str) or not text.strip():
            raise MnemoError("nothing to append: the text is empty")
        with self.lock():
            current = self.read(title, scope)
            joined = f"{current.text}\n\n{text.strip()}"
            now = iso_utc(dt.datetime.now(dt.UTC))
            memory = replace(current, text=joined, entities=list({r.ref: r for r in [*current.entities,
                             *refs_in(text)]}.values()), history=_history(current, now))
            return self._write(memory)

    def _write(self, memory: Memory) -> Memory:
        store_memory(self.root, memory)
        return make_recallable(self.vectors, self.embedder, memory, self.max_words)


def _history(current: Memory, until: str) -> list[dict[str, str]]:
    return [*current.history, {"text": current.text, "until": until}]
