"""Note cards: one multilingual vector per note, so that a question in one language finds a note
written in another.

MiniLM, the English model, cannot carry a question's meaning into Spanish notes (or a Spanish
question's into anything). Where the notes are mostly in a language other than English and the
passages are embedded by an English-only model (`recall.query_language`), ingest also gives every
note a card: its names (aliases, else the title), its opening words and the names of the notes it
is linked with (either way), embedded by a multilingual model (`card_encoder`: e5) into the
`note_cards` vector table, one short text per note (a note's card is embedded again only when its
text changes: its own or a linked note's names). Recall asks the
cards with the query (on a worker thread, while the passages are searched: `CardReads`) and the
first passages of the `CARD_NOTES` nearest notes join the pool, the
card at place p with `Ranking.card_weight` times the best candidate's score ÷ p ** `card_decay`
(`add_card_notes`), as the pages of named entities join it (`recall.gathering.add_pages`).
Namespaces with no cards table (English notes, or a multilingual embedder) are untouched.
(benchmarks/multilingual_cards.py; docs/EVALUATION.md, "Notes in other languages")."""

import logging
import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from mnemo.documents import Document
from mnemo.errors import MnemoError
from mnemo.extract.notes import NoteIndex
from mnemo.recall.query_language import ENGLISH_ONLY
from mnemo.recall.rank import Pool
from mnemo.recall.search import HeldChunks
from mnemo.stores.embedders import Embedder
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_purge import CARDS  # the vector table of the cards
from mnemo.stores.vector_rows import vector_matrix
from mnemo.stores.vector_table import VectorTable
from mnemo.stores.vectors import SyncStats, VectorStore

LOG = logging.getLogger(__name__)
CARDS_THREAD = "mnemo-cards"  # the name of the worker thread a query's cards are looked up on
OPENING_CHARS = 300  # of a note's body, after its names (with the linked names; 400 without them, 200 did worse)
LINKED_NAMES = 8  # names of the notes a note is linked with, after its opening words
CARD_NOTES = 5  # nearest cards whose notes join a query's pool
CARD_FAILURES = (MnemoError, ImportError, OSError, RuntimeError, ValueError)  # e5 or the cards table unusable
_LINK = re.compile(r"!?\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]+?))?\]\]")
_MARKUP = re.compile(r"[#*>`$\\{}^_|]+")
_SPACE = re.compile(r"\s+")
_STAMP = re.compile(r"^\d{8,}-")  # a Zettelkasten id before a slug title: 1708533902-depth-first-search


def card_text(doc: Document, linked: Iterable[str] = ()) -> str:
    """The note's names (its aliases, else its title without a leading id), the opening words of
    its body (links as their shown text, Markdown marks dropped), and the first names of the notes
    it is linked with (`linked_names`)."""
    body = _LINK.sub(lambda m: m.group(2) or m.group(1), doc.body)
    opening = _SPACE.sub(" ", _MARKUP.sub(" ", body)).strip()[:OPENING_CHARS]
    neighbours = ", ".join(list(linked)[:LINKED_NAMES])
    return f"{'; '.join(note_names(doc))}. {opening} {neighbours}".strip()


def note_names(doc: Document) -> list[str]:
    """A note's names: its aliases, else its title without a leading id."""
    return list(dict.fromkeys(doc.aliases)) or [_STAMP.sub("", doc.title).replace("-", " ")]


def linked_names(notes: list[Document]) -> dict[str, list[str]]:
    """For each note (by id), the first name of every note it links to or that links to it, in
    the order the links are met (targets resolved as Obsidian resolves them: `NoteIndex`): the
    owner's own glossary of what the note is about."""
    index = NoteIndex(notes)
    linked: dict[str, list[str]] = {}
    for note in notes:
        for link in note.links:
            target = index.find(link.target)
            if target is not None and target.id != note.id:
                linked.setdefault(note.id, []).append(note_names(target)[0])
                linked.setdefault(target.id, []).append(note_names(note)[0])
    return {doc: list(dict.fromkeys(names)) for doc, names in linked.items()}


def card_rows(docs: Iterable[Document]) -> list[dict[str, Any]]:
    """Rows of the cards table: one per Markdown note, with the text its vector is made from."""
    notes = [d for d in docs if d.path.endswith(".md")]
    linked = linked_names(notes)
    return [{"id": f"card_{d.id}", "doc_id": d.id, "path": d.path, "embed_text": card_text(d, linked.get(d.id, []))}
            for d in notes]


class NoteCards:
    """The cards of one version of the table, held in memory (a few hundred bytes a note)."""

    def __init__(self, table: VectorTable) -> None:
        data = table.select(["doc_id", "vector"])
        self.version = table.version
        self.doc_ids: list[str] = data["doc_id"].to_pylist()
        self.vectors = vector_matrix(data["vector"]) if data.num_rows else np.zeros((0, 1), dtype=np.float32)

    def nearest(self, vector: np.ndarray, limit: int) -> list[str]:
        """The documents of the `limit` cards nearest the query vector (unit vectors), nearest first."""
        if not self.doc_ids:
            return []
        scores = self.vectors @ np.asarray(vector, dtype=np.float32)
        order = np.argsort(-scores, kind="stable")[:limit]
        return [self.doc_ids[n] for n in order]


def add_card_notes(table: VectorTable, pool: Pool, docs: list[str], weight: float, decay: float = 1.0,
                   held: HeldChunks | None = None) -> None:
    """Each note in `docs` (nearest card first) gains weight × the best candidate's score ÷ its
    place ** decay: on its best passage already in the pool, else on its first passage (from the
    `held` rows of a small table, else one lookup for all of them)."""
    best = weight * max(pool.scores.values(), default=1.0)
    in_pool: dict[str, str] = {}
    for candidate in pool.best():
        in_pool.setdefault(pool.rows.get(candidate, {}).get("doc_id", ""), candidate)
    first = first_passages(table, [d for d in docs if d not in in_pool], held)
    for place, doc in enumerate(docs, 1):
        row_id = in_pool.get(doc) or first.get(doc)
        if row_id is not None:
            pool.add(row_id, best / place ** decay, "card")


def first_passages(table: VectorTable, docs: list[str], held: HeldChunks | None = None) -> dict[str, str]:
    """Document id -> the id of its first passage, for the given documents the table holds."""
    if not docs:
        return {}
    if held is not None:
        positions = held.data.column("position").to_numpy()
        return {doc: held.ids[offsets[np.argmin(positions[offsets])]]
                for doc, offsets in held.of_documents(docs).items()}
    first: dict[str, tuple[int, str]] = {}
    for row in table.select(["id", "doc_id", "position"], Filter.docs(docs)).to_pylist():
        if row["doc_id"] not in first or row["position"] < first[row["doc_id"]][0]:
            first[row["doc_id"]] = (row["position"], row["id"])
    return {doc: row_id for doc, (_, row_id) in first.items()}


def card_encoder() -> Embedder:
    """The multilingual model the cards are embedded by (packaged, offline), each engine on one
    thread: a query's runs beside MiniLM's; at ingest the cards are shared between two engines on
    two threads, with nothing else running (`E5Embedder`)."""
    from mnemo.stores.e5 import E5Embedder

    return E5Embedder(threads=1, engines=2)


def has_cards(vectors: VectorStore) -> bool:
    """Whether the namespace has a cards table (one look at its folder)."""
    return (vectors.path / f"{CARDS}.lance").exists()


def wants_cards(embedder: str, stemmer: str) -> bool:
    """Whether a namespace needs cards: its passages' embedder reads English alone and most of its
    notes are in another language (their full-text index stems it: `ingest.embedder_choice`)."""
    return embedder in ENGLISH_ONLY and stemmer != "English"


def update_cards(vectors: VectorStore, docs: Callable[[], Iterable[Document]], wanted: bool,
                 encoder: Embedder | None = None) -> SyncStats | None:
    """One card per note of `docs()` when `wanted` (only new or changed cards embedded); when not,
    a cards table left from before is emptied. None when there was nothing to do."""
    if not wanted and not has_cards(vectors):
        return None
    return vectors.sync(CARDS, card_rows(docs()) if wanted else [], encoder or card_encoder())


class CardReads:
    """Recall's side of the cards: the notes of the cards nearest a query, looked up on a worker
    thread of their own while the query is searched on the calling thread (the e5 engine and
    LanceDB release the GIL). The worker alone holds the table's current version and the encoder,
    so the encoder runs one query at a time; no worker is started for a namespace without cards."""

    def __init__(self, vectors: VectorStore, encoder: Embedder | None = None) -> None:
        self.vectors = vectors
        self.encoder = encoder
        self.held: NoteCards | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._starting = threading.Lock()  # recalls on several threads start one worker

    def ask(self, query: str, limit: int = CARD_NOTES) -> Future[list[str]] | None:
        """Start looking up the cards nearest the query; None when the namespace has no cards."""
        if not has_cards(self.vectors):
            return None
        with self._starting:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix=CARDS_THREAD)
            return self._worker.submit(self._nearest, query, limit)

    def answer(self, asked: Future[list[str]] | None) -> list[str]:
        """The documents of the nearest cards, nearest first; none when the lookup failed (the
        reason logged: recall goes on without the cards)."""
        if asked is None:
            return []
        try:
            return asked.result()
        except CARD_FAILURES as error:
            LOG.warning("note cards left out of recall in %s: %s", self.vectors.path, error)
            return []

    def close(self) -> None:
        """End the worker thread (a later `ask` starts another)."""
        with self._starting:
            worker, self._worker = self._worker, None
        if worker is not None:
            worker.shutdown(wait=True, cancel_futures=True)

    def _nearest(self, query: str, limit: int) -> list[str]:
        table = self.vectors.open(CARDS)
        if table is None:
            return []
        if self.held is None or self.held.version != table.version:
            self.held = NoteCards(table)
        self.encoder = self.encoder or card_encoder()
        return self.held.nearest(self.encoder.encode_query([query])[0], limit)
