"""Write-through memories: what `remember` writes is recallable by the next recall, in any process.

`remember` writes the memory to the inbox (durably, first), then makes the passages the next
ingest run will make for it — the same chunks with the same content-addressed ids, the same
rows — and puts them into the namespace's `chunks` table (vectors and full text) under the
table's write lock. The ingest run takes the rows over unchanged: its sync finds them as it
would have written them. Entities, relations and the graph follow at that run.

A sync that started from documents scanned before a memory was written keeps the memory's rows
(`pending_groups`, asked under the table's lock), so a concurrent ingest never drops them.
"""

from collections.abc import Callable
from pathlib import Path

from mnemo.errors import StoreLocked
from mnemo.ingest.pipeline import chunk_groups, document_chunks
from mnemo.sources.memories import (
    MEMORY_SOURCE,
    Memory,
    inbox_dir,
    is_titled,
    memory_doc_id,
    memory_documents,
    read_memory,
)
from mnemo.stores.embedders import Embedder
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vectors import RowGroup, VectorStore

LIVE_WAIT_SECONDS = 10.0  # how long remember waits for a sync holding the chunks table
SOURCE = MEMORY_SOURCE


def memory_groups(memory: Memory, max_words: int) -> list[RowGroup]:
    """The chunks-table rows the ingest makes for a memory, by document (`chunk_groups`)."""
    docs = memory_documents(memory, memory.namespace, SOURCE, f"{memory.id}.json", None)
    return chunk_groups([chunk for doc in docs for chunk in document_chunks(doc, max_words, {})])


def make_recallable(vectors: VectorStore, embedder: Embedder, memory: Memory, max_words: int,
                    wait_seconds: float = LIVE_WAIT_SECONDS) -> Memory:
    """Put the memory's passages into the chunks table; its status becomes `recallable`. When a
    sync holds the table longer than `wait_seconds` it stays `processing` (it is in the inbox,
    and the next ingest run makes it recallable)."""
    try:
        vectors.put_groups("chunks", memory_groups(memory, max_words), embedder, wait_seconds=wait_seconds)
    except StoreLocked:
        return memory
    memory.status = "recallable"
    return memory


def pending_groups(root: Path, namespace: str, max_words: int) -> Callable[[set[str]], list[RowGroup]]:
    """For `VectorStore.sync_groups(late=...)`: the rows of the inbox's memories whose documents
    are not among the sync's groups (written after its documents were scanned), and of every
    titled memory (whose text a save may have replaced since), except those forgotten."""

    def late(keys: set[str]) -> list[RowGroup]:
        folder = inbox_dir(root)
        if not folder.is_dir():
            return []
        forgotten = Tombstones.load(root).docs
        groups: list[RowGroup] = []
        for path in sorted(folder.glob("mem_*.json")):
            doc = memory_doc_id(namespace, path.stem)
            if (doc in keys and not is_titled(path.stem)) or doc in forgotten:
                continue
            try:
                memory = read_memory(path)
            except (OSError, ValueError, TypeError):
                continue  # forgotten meanwhile, or not a memory: the scan reports the file
            if not memory.expired():  # an expired memory is never ingested
                groups.extend(memory_groups(memory, max_words))
        return groups

    return late
