"""The paired embedder (`embedder: {kind: minilm+e5}`): MiniLM's and e5's vectors end to end, a
query's cosine the blend of the two models' cosines, and recall across languages end to end."""

from pathlib import Path

import numpy as np
import pytest

from mnemo.client import MemoryClient
from mnemo.config import EmbedderConfig
from mnemo.recall.settings import RecallSettings
from mnemo.stores.e5 import E5Embedder
from mnemo.stores.embedders import MiniLMEmbedder, build_embedder
from mnemo.stores.paired import PairedEmbedder
from tests.support import make_workspace

PASSAGES = ["La búsqueda en anchura visita todos los vecinos de un vértice antes de seguir.",
            "Para la paella se sofríe el pollo, se añade el arroz y el caldo con azafrán.",
            "The tomatoes need water every morning in July."]
QUERY = "Welcher Graphenalgorithmus besucht erst alle Nachbarn eines Knotens?"


def test_config_kind_minilm_e5_builds_it_and_its_vectors_are_both_models_end_to_end() -> None:
    embedder = build_embedder(EmbedderConfig(kind="minilm+e5", batch_size=2))
    assert isinstance(embedder, PairedEmbedder) and embedder.dim == 768
    vectors = embedder.encode(PASSAGES)
    assert vectors.shape == (3, 768) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    minilm, e5 = MiniLMEmbedder().encode(PASSAGES), E5Embedder().encode(PASSAGES)
    assert np.allclose(vectors[:, :384] * np.sqrt(2), minilm / np.linalg.norm(minilm, axis=1, keepdims=True), atol=1e-4)
    assert np.allclose(vectors[:, 384:] * np.sqrt(2), e5, atol=1e-4)
    assert embedder.encode([]).shape == (0, 768) and embedder.encode_query([]).shape == (0, 768)


@pytest.mark.parametrize("share", [0.0, 0.3, 1.0])
def test_a_query_ranks_passages_by_the_blend_of_the_two_models_cosines(share: float) -> None:
    embedder = PairedEmbedder(e5_share=share)
    cosines = embedder.encode_query([QUERY])[0] @ embedder.encode(PASSAGES).T
    minilm = MiniLMEmbedder()
    m = minilm.encode([QUERY])[0] @ minilm.encode(PASSAGES).T / (
        np.linalg.norm(minilm.encode([QUERY])[0]) * np.linalg.norm(minilm.encode(PASSAGES), axis=1))
    e = E5Embedder().encode_query([QUERY])[0] @ E5Embedder().encode(PASSAGES).T
    blend = (1 - share) * m + share * e
    factor = cosines / blend  # one factor per query: the same ranking as the blend
    assert np.allclose(factor, factor[0], rtol=1e-3)


def test_recall_with_the_pair_finds_a_spanish_note_from_a_question_in_chinese(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    notes = {
        "Búsqueda en anchura.md": "La búsqueda en anchura visita primero todos los vértices adyacentes a un "
                                  "vértice y solo después pasa a los vecinos de estos, usando una cola.",
        "Paella.md": "Para la paella se sofríe el pollo y el conejo, se añade el arroz y el caldo con azafrán, "
                     "y se deja cocer sin remover durante unos veinte minutos.",
        "Viaje a Lisboa.md": "En el viaje a Lisboa visitamos el barrio de Alfama, subimos en el tranvía 28 y "
                             "comimos pasteles de nata en Belém.",
        "Teorema de Fermat.md": "El pequeño teorema de Fermat dice que si p es primo, a elevado a p es "
                                "congruente con a módulo p; se demuestra por inducción sobre a.",
    }
    for name, text in notes.items():
        (vault / name).write_text(text + "\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]}, embedder="minilm+e5")
    workspace.ingest()
    client = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0))
    assert isinstance(client.embedder, PairedEmbedder)
    assert client.recall("费马小定理是怎么证明的？", k=3).items[0].path == "Teorema de Fermat.md"
    assert client.recall("Welcher Algorithmus besucht erst alle Nachbarn?", k=3).items[0].path == \
        "Búsqueda en anchura.md"
