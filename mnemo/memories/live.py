"""One namespace's live memories: remember, read with their status, save by title, forget.

`LiveMemories` is what the surfaces (the Python client, the CLI, HTTP and MCP) call for
memories; each change is recallable (or forgotten) when it returns. Forgetting a memory goes
through the namespace's journaled forget (`mnemo.maintenance.forget`), as every forget does.
"""

import datetime as dt
from typing import Any

from mnemo.errors import MnemoError
from mnemo.maintenance.forget import ForgetReport, ForgetStores, apply_forget
from mnemo.memories.purge import purge_expired, purge_memories
from mnemo.memories.remember import check_scope, make_recallable, write_memory
from mnemo.memories.titled import TitledMemories
from mnemo.sources.memory_files import GLOBAL, Memory, inbox_dir, memory_doc_id, memory_doc_ids, read_memory
from mnemo.stores.vector_filter import Filter


class LiveMemories:
    """The memories in one namespace's inbox, and the stores that make them recallable."""

    def __init__(self, stores: ForgetStores) -> None:
        self.stores = stores
        self.namespace = stores.files.namespace
        self.root = stores.files.root
        self.max_words = stores.config.chunking.max_words
        self.titled = TitledMemories(self.root, self.namespace, stores.vectors, stores.embedder, self.max_words)

    def remember(self, text: str, entities: list[Any] | None = None, expires_at: str | dt.datetime | None = None,
                 ttl: float | None = None, scope: str = GLOBAL) -> Memory:
        """Write a memory to the inbox durably, then make it recallable at once (status `recallable`)."""
        memory = write_memory(self.root, self.namespace, text, entities, expires_at, ttl, scope)
        return make_recallable(self.stores.vectors, self.stores.embedder, memory, self.max_words)

    # -- reading, with the current status ------------------------------------------------

    def memory(self, memory_id: str) -> Memory:
        """A memory with its current status: `processing` (in the inbox only), `recallable` (its
        passages are searched), `ingested` (an ingest run has taken it over) or `expired`."""
        path = inbox_dir(self.root) / f"{memory_id}.json"
        if "/" in memory_id or not path.exists():
            raise MnemoError(f"no memory {memory_id!r} in namespace {self.namespace!r}")
        return self.with_status([read_memory(path)])[0]

    def in_room(self, memory_id: str, room: str | None) -> Memory:
        """`memory`; with `room` (a scope), only a memory of that room."""
        memory = self.memory(memory_id)
        if room is not None and memory.scope != check_scope(room):
            raise MnemoError(f"no memory {memory_id!r} in room {room!r}")
        return memory

    def listed(self, scope: str | None = None) -> list[Memory]:
        """The memories in the inbox (of one scope when given; titled and untitled), oldest first,
        with their expiry and current status."""
        wanted = None if scope is None else check_scope(scope)
        found = [read_memory(p) for p in sorted(inbox_dir(self.root).glob("mem_*.json"))]
        chosen = self.with_status([m for m in found if wanted in (None, m.scope)])
        return sorted(chosen, key=lambda m: m.created)

    def with_status(self, memories: list[Memory]) -> list[Memory]:
        """The memories with their current status, read from the manifest and the chunks table (each
        read once, however many memories)."""
        ingested = {doc for entry in self.stores.files.read_manifest() for doc in entry.doc_ids} if memories else set()
        docs = {memory.id: memory_doc_id(self.namespace, memory.id) for memory in memories}
        pending = [docs[m.id] for m in memories if not m.expired() and docs[m.id] not in ingested]
        recallable = {row["doc_id"] for row in self.stores.vectors.rows("chunks", ["doc_id"], Filter.docs(pending))} \
            if pending else set()
        for memory in memories:
            if memory.expired():
                memory.status = "expired"
            elif docs[memory.id] in ingested:
                memory.status = "ingested"
            elif docs[memory.id] in recallable:
                memory.status = "recallable"
        return memories

    # -- forgetting ----------------------------------------------------------------------

    def forget_memory(self, memory_id: str, request: dict[str, Any]) -> ForgetReport:
        """Forget one memory by id: its note and entity documents, in every store, and its file."""
        found = self.memory(memory_id)
        report = ForgetReport(docs=set(memory_doc_ids(found)), items=[{"memory": found.id, "text": found.text}],
                              request=request)
        apply_forget(self.stores, report, [memory_id])
        return report

    def forget_title(self, title: str, scope: str) -> ForgetReport:
        """Forget the memory saved under this title in this scope (held under the titled-memory lock)."""
        with self.titled.lock():
            return purge_memories(self.stores, [self.titled.read(title, scope)])

    def forget_scope(self, scope: str) -> ForgetReport:
        """Forget every memory of a scope (clear a room)."""
        return purge_memories(self.stores, self.listed(scope))

    def forget_expired(self) -> ForgetReport:
        """Forget every memory whose expiry has passed."""
        return purge_expired(self.stores)
