"""The vector-scale benchmark's generated table carries mnemo's chunk columns, so the whole
eager recall call runs on it (both searches, neighbouring turns through prev/next ids)."""

from pathlib import Path

from benchmarks.recall_bench import build_vector_table, whole_call
from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vectors import VectorStore


def test_whole_eager_call_runs_on_generated_chunks(tmp_path: Path) -> None:
    embedder = HashingEmbedder(64)
    build_vector_table(tmp_path / "scale", 120, embedder.dim)
    table = VectorStore(tmp_path / "scale").table("chunks")
    row = table.search().where("id = 'chunk_000000041'").limit(1).to_list()[0]
    assert (row["doc_id"], row["position"], row["prev_id"], row["next_id"]) == ("doc_00000002", 1, "chunk_000000040", "chunk_000000042")
    result = whole_call(tmp_path, VectorStore(tmp_path / "scale"), embedder)(row["text"])
    assert len(result.items) == 10 and result.degraded is None
    texts = {r["id"]: r["text"] for r in table.search().select(["id", "text"]).limit(None).to_list()}
    assert all(item.text == texts[item.id] and item.reasons for item in result.items)
    # the generated vectors are not embeddings of the texts: the row is found by its words
    assert row["id"] in {item.id for item in result.items if "lexical" in item.reasons}


def test_the_median_sample_is_reported_with_every_sample() -> None:
    from benchmarks.measure import median_sample

    runs = [{"wall_s": 5.2, "tag": "a"}, {"wall_s": 4.8, "tag": "b"}, {"wall_s": 6.1, "tag": "c"}]
    assert median_sample(runs, "wall_s") == {"wall_s": 5.2, "tag": "a", "samples_s": [5.2, 4.8, 6.1]}
    assert median_sample(runs[:2], "wall_s")["tag"] == "b"  # the lower middle of an even count
    assert median_sample(runs[:1], "wall_s") == runs[0]  # one run: as it is
