"""Recall's side of the note cards (`recall.note_cards.CardReads`): the query's nearest cards are
looked up on a worker thread of their own while the passages are searched on the caller's; a
model or table the cards cannot use leaves the recall answered without them, the reason logged;
a namespace without cards starts no thread, and closing the engine ends the threads it started.
The passages and the cards are embedded by the hashing embedder here (fast, deterministic)."""

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from mnemo.eval.notes import Vault, ingest_vault
from mnemo.recall.engine import RecallEngine
from mnemo.recall.note_cards import CARDS_THREAD, update_cards
from mnemo.recall.results import RecallResult
from mnemo.recall.settings import Ranking, RecallSettings
from mnemo.stores.e5 import E5Embedder
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology

NOTES = {
    "kruskal": "Algoritmo de Kruskal. Ordenamos las aristas del grafo ponderado de menor a mayor peso.",
    "bayes": "Teorema de Bayes. La probabilidad de cada suceso de la partición sabiendo que ha ocurrido otro.",
    "biseccion": "Método de la bisección. Se parte el intervalo por su punto medio y se conserva una mitad.",
}
QUESTION = "Kruskal aristas ponderado"


@dataclass
class ThreadNoting:
    """The hashing embedder, noting the thread each query is encoded on."""

    name: str = "hashing-384"
    dim: int = 384
    threads: list[int] = field(default_factory=list)

    def encode(self, texts: list[str]) -> np.ndarray:
        return HashingEmbedder(self.dim).encode(texts)

    def encode_query(self, texts: list[str]) -> np.ndarray:
        self.threads.append(threading.get_ident())
        return HashingEmbedder(self.dim).encode_query(texts)


def _ingested(root: Path, with_cards: bool) -> Vault:
    vault = root / "vault"
    vault.mkdir()
    for stem, text in NOTES.items():
        (vault / f"{stem}.md").write_text(f"# {text.split('.')[0]}\n{text}\n", encoding="utf-8")
    ingested = ingest_vault(vault, "obsidian", root / "work", HashingEmbedder(384), load_ontology(), RecallSettings())
    if with_cards:
        update_cards(ingested.pipeline.vectors, ingested.pipeline.files.read_documents, True, HashingEmbedder(384))
    return ingested


@pytest.fixture(scope="module")
def with_cards(tmp_path_factory: pytest.TempPathFactory) -> Vault:
    return _ingested(tmp_path_factory.mktemp("cards"), with_cards=True)


def _engine(vault: Vault, card_weight: float = 2.0) -> RecallEngine:
    base = vault.engine
    settings = RecallSettings(ranking=Ranking(card_weight=card_weight), random_share=0.0)
    return RecallEngine(base.root, base.vectors, base.graph, base.embedder, settings, seed=0, session=base.session)


def _cards_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith(CARDS_THREAD)}


def _by_cards(result: RecallResult) -> list[str]:
    return [i.doc_id for i in result.items if "card" in i.reasons]


def test_the_cards_of_a_query_are_looked_up_off_the_calling_thread(with_cards: Vault) -> None:
    engine, noting = _engine(with_cards), ThreadNoting()
    engine.cards.encoder = noting
    result = engine.recall(QUESTION, k=3)
    assert noting.threads and threading.get_ident() not in noting.threads
    assert _by_cards(result)  # the cards' notes joined the answer
    engine.close()


def test_an_unusable_e5_model_leaves_the_recall_answered_without_cards(
        with_cards: Vault, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    broken = tmp_path / "e5-small-q4.bin"
    broken.write_bytes(b"not a model")
    engine = _engine(with_cards)
    engine.cards.encoder = E5Embedder(model=broken, threads=1)
    with caplog.at_level(logging.WARNING, logger="mnemo.recall.note_cards"):
        result = engine.recall(QUESTION, k=3)
    assert result.items and not _by_cards(result)
    assert "note cards left out of recall" in caplog.text and str(broken) in caplog.text
    engine.close()


def test_closing_the_engine_ends_its_cards_thread(with_cards: Vault) -> None:
    engine, before = _engine(with_cards), _cards_threads()
    engine.recall(QUESTION, k=3)
    started = _cards_threads() - before
    assert len(started) == 1
    engine.close()
    assert not any(t.is_alive() for t in started)
    assert _by_cards(engine.recall(QUESTION, k=3))  # a recall after closing starts the thread again
    engine.close()


def test_no_cards_thread_without_cards_or_with_the_cards_off(with_cards: Vault, tmp_path: Path) -> None:
    before = _cards_threads()
    off = _engine(with_cards, card_weight=0.0)
    assert off.recall(QUESTION, k=3).items and not _by_cards(off.recall(QUESTION, k=3))
    plain = _engine(_ingested(tmp_path, with_cards=False))
    assert plain.recall(QUESTION, k=3).items
    assert _cards_threads() == before
