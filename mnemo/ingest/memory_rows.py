"""The chunk rows a memory becomes, the same whether `remember` writes them or ingest does.

`remember` (`mnemo.memories.remember`) puts a memory's rows into the namespace's `chunks` table
at once: the same chunks with the same content-addressed ids that the next ingest run makes for
it (`memory_groups`). The ingest run takes the rows over unchanged: its sync finds them as it
would have written them. Entities, relations and the graph follow at that run.

A sync that started from documents scanned before a memory was written keeps the memory's rows
(`pending_groups`, asked under the table's lock), so a concurrent ingest never drops them.
"""

from collections.abc import Callable
from pathlib import Path

from mnemo.ingest.pipeline import chunk_groups, document_chunks
from mnemo.sources.memory_files import (
    MEMORY_SOURCE,
    Memory,
    inbox_dir,
    is_titled,
    memory_doc_id,
    memory_documents,
    read_memory,
)
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vectors import RowGroup

SOURCE = MEMORY_SOURCE


def memory_groups(memory: Memory, max_words: int) -> list[RowGroup]:
    """The chunks-table rows the ingest makes for a memory, by document (`chunk_groups`)."""
    docs = memory_documents(memory, memory.namespace, SOURCE, f"{memory.id}.json", None)
    return chunk_groups([chunk for doc in docs for chunk in document_chunks(doc, max_words, {})])


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
