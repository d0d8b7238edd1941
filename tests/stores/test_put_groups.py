"""`VectorStore.put_groups`: a few groups written between syncs, every other row left alone, the
ANN index left to the next sync, and the sync's record kept so it compares only what changed."""

from pathlib import Path
from typing import Any

from mnemo.config import VectorIndexConfig
from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vector_index import vector_index_state
from mnemo.stores.vectors import RowGroup, VectorStore

EMBEDDER = HashingEmbedder(32)


def group(key: str, size: int, version: str = "a") -> RowGroup:
    def rows() -> list[dict[str, Any]]:
        return [{"id": f"{key}-{n}", "doc_id": key, "embed_text": f"text {key} {n} {version}"} for n in range(size)]

    return RowGroup(key, f"{key}:{size}:{version}", size, rows)


def test_put_groups_leaves_other_rows_and_the_ann_index_to_the_next_sync(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "vectors", VectorIndexConfig(min_rows=256))
    base = [group(f"d{n}", 3) for n in range(90)]  # 270 rows: at the index threshold
    store.sync_groups("chunks", base[:80], EMBEDDER)  # 240 rows: below it, no index
    stats = store.put_groups("chunks", base[80:], EMBEDDER)
    table = store.table("chunks")
    assert stats.embedded == 30 and table.count_rows() == 270
    assert vector_index_state(table) is None  # remember never builds the ANN index
    again = store.sync_groups("chunks", base, EMBEDDER)
    assert again.embedded == 0 and again.deleted == 0 and again.index == "built"


def test_put_groups_replaces_only_its_groups_rows(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "vectors")
    store.sync_groups("chunks", [group("a", 2), group("b", 2)], EMBEDDER)
    store.put_groups("chunks", [group("b", 1, "changed")], EMBEDDER)
    assert sorted(r[0] for r in store.dump("chunks")) == ["a-0", "a-1", "b-0"]
