"""What `mnemo status` shows of a namespace: graph and vector counts, problem files and the
memories no ingest has taken yet.

Each count is kept beside its store while the store is unchanged (`mnemo.stores.kept`), so a
status after the last write has been counted once opens neither Kùzu nor LanceDB, and loads no
dataframe library: the stores are imported only when a figure has to be counted afresh.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo.stores.kept import GRAPH_FILE, INBOX_FOLDER, NOTE_CARDS, VECTORS_FOLDER, file_stamp, graph_counts, kept
from mnemo.stores.vector_counts import counted_rows

if TYPE_CHECKING:  # polars loads with the files, only when a figure is counted afresh
    from mnemo.documents import Document
    from mnemo.stores.files import NamespaceFiles


@dataclass
class NamespaceFigures:
    graph: dict[str, int]  # rows per node and edge table
    chunk_vectors: int
    entity_vectors: int
    problems: list[dict[str, Any]]  # one per problem of a file: path, reason
    pending_memories: int
    degraded: list[str] = field(default_factory=list)  # a store that could not be read, and why
    note_cards: int = 0  # the notes' e5 cards, where the notes are not in English (`recall.note_cards`)

    def rows(self) -> list[tuple[str, int]]:
        """(what, count) in the order status shows them (note cards only where a namespace has them)."""
        cards = [("note cards", self.note_cards)] if self.note_cards else []
        return [*self.graph.items(), ("chunk vectors", self.chunk_vectors), ("entity vectors", self.entity_vectors),
                *cards, ("problem files", len({p["path"] for p in self.problems})),
                ("pending memories", self.pending_memories)]

    def cards_line(self) -> str | None:
        """What status says of the note cards, when the namespace has them."""
        if not self.note_cards:
            return None
        return (f"note cards: {self.note_cards}, one multilingual e5 vector per note (its names and opening "
                f"words), so a question in another language than a note still finds it")


def namespace_figures(root: Path, namespace: str, engine: str) -> NamespaceFigures:
    """The figures of the namespace whose folder is `root`, its graph opened with `engine` when it
    has to be counted."""
    degraded: dict[str, str] = {}
    problems, graph = root / "problems.json", root / GRAPH_FILE
    return NamespaceFigures(
        graph=graph_counts(graph, lambda: _count_graph(graph, engine)) if graph.exists() else {},
        chunk_vectors=_vector_rows(root / VECTORS_FOLDER, "chunks", degraded),
        entity_vectors=_vector_rows(root / VECTORS_FOLDER, "entities", degraded),
        note_cards=_vector_rows(root / VECTORS_FOLDER, NOTE_CARDS, degraded) if _has(root, NOTE_CARDS) else 0,
        problems=json.loads(problems.read_text(encoding="utf-8")) if problems.exists() else [],
        pending_memories=_pending(root, namespace),
        degraded=list(degraded.values()),
    )


def _has(root: Path, table: str) -> bool:
    """Whether the namespace has the vector table (one look at its folder: nothing loads)."""
    return (root / VECTORS_FOLDER / f"{table}.lance").is_dir()


def _count_graph(path: Path, engine: str) -> dict[str, int]:
    from mnemo.stores.graph import GraphStore  # Kùzu and polars load only to count afresh
    from ontology import load_ontology

    return GraphStore(path, load_ontology(), engine=engine).counts()


def _vector_rows(folder: Path, name: str, degraded: dict[str, str]) -> int:
    """The table's rows (0 without the folder: counting never makes it); a table that cannot be
    opened is noted in `degraded`."""
    if not folder.is_dir():
        return 0

    def count() -> int | None:
        from mnemo.stores.vectors import VectorStore  # LanceDB loads only to count afresh

        store = VectorStore(folder)
        rows = store.count(name)
        degraded.update({table: str(problem) for table, problem in store.problems.items()})
        return None if name in store.problems else rows  # an unreadable table's 0 is not kept

    return counted_rows(folder, name, count)


def _pending(root: Path, namespace: str) -> int:
    """Inbox memories no ingest has taken yet; the documents table is read only when the inbox
    holds memories, and its memory ids are kept while it is unchanged."""
    if not any((root / INBOX_FOLDER).glob("mem_*.json")):
        return 0
    from mnemo.sources.memory_files import pending_memories  # the parsers load only for memories

    def ingested() -> list[str]:
        from mnemo.stores.files import NamespaceFiles  # polars loads only to read the table afresh

        return _memory_ids(NamespaceFiles(root.parent, namespace).read_documents())

    return pending_memories(root, namespace, set(_kept_memory_ids(root, ingested)))


def keep_memory_ids(files: "NamespaceFiles") -> None:
    """Keep the ids of the memories the documents table holds, for `mnemo status` (ingest calls
    this once it has written the table)."""
    _kept_memory_ids(files.root, lambda: _memory_ids(files.read_documents()))


def _kept_memory_ids(root: Path, ingested: Callable[[], list[str]]) -> list[str]:
    def valid(figure: Any) -> bool:
        return isinstance(figure, list)

    documents = root / "documents.parquet"
    return kept(root / "documents.memories.json", lambda: file_stamp(documents), ingested, valid) or []


def _memory_ids(documents: "list[Document]") -> list[str]:
    from mnemo.sources.memory_files import MEMORY_SOURCE

    return sorted(d.id for d in documents if d.source == MEMORY_SOURCE)
