"""`mnemo status` counts vectors without loading LanceDB while a table is unchanged (every sync
keeps its table's count), and a write that kept nothing (more rows, fewer rows) is counted afresh."""

import subprocess
import sys
from pathlib import Path

from mnemo.config import EmbedderConfig
from mnemo.stores.embedders import build_embedder
from mnemo.stores.vectors import VectorStore

COUNT_IN_A_NEW_PROCESS = """
import sys
from pathlib import Path
from mnemo.stores.vectors import VectorStore
print(VectorStore(Path(sys.argv[1])).count("chunks"), "lancedb" in sys.modules)
"""


def rows(n: int) -> list[dict[str, str]]:
    return [{"id": f"c{i}", "doc_id": "a", "embed_text": f"passage {i} about boats"} for i in range(n)]


def count_in_a_new_process(path: Path) -> tuple[int, bool]:
    done = subprocess.run([sys.executable, "-c", COUNT_IN_A_NEW_PROCESS, str(path)],
                          capture_output=True, text=True, check=True)
    count, loaded = done.stdout.split()
    return int(count), loaded == "True"


def test_an_unchanged_table_is_counted_without_lancedb_and_a_write_is_seen(tmp_path: Path) -> None:
    embedder = build_embedder(EmbedderConfig(kind="hashing", dimensions=16))
    store = VectorStore(tmp_path / "lance")
    store.sync("chunks", rows(5), embedder)
    assert count_in_a_new_process(store.path) == (5, False)  # the writer kept its count
    record = store.path / "chunks.rows.json"
    counted_at_five = record.read_text(encoding="utf-8")
    record.unlink()
    assert count_in_a_new_process(store.path) == (5, True)  # nothing kept: the table is opened
    assert count_in_a_new_process(store.path) == (5, False)  # and its count kept
    store.sync("chunks", rows(8), embedder)
    record.write_text(counted_at_five, encoding="utf-8")  # a write that kept nothing (another version, a tool)
    assert count_in_a_new_process(store.path) == (8, True)
    store.sync("chunks", rows(2), embedder)  # deleting rows is a write too
    assert store.count("chunks") == 2
    assert count_in_a_new_process(store.path) == (2, False)


def test_no_table_counts_zero(tmp_path: Path) -> None:
    assert VectorStore(tmp_path / "lance").count("chunks") == 0
