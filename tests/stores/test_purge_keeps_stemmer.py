"""A forget rebuilds the full-text index of every table it purged; the index keeps the stemmer it had
(the notes' language), so keyword search over Spanish notes stays Spanish after a forget."""

from pathlib import Path

from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vector_index import fts_language
from mnemo.stores.vector_purge import purge_vectors
from mnemo.stores.vectors import VectorStore


def test_a_forget_keeps_the_full_text_index_in_the_notes_language(tmp_path: Path) -> None:
    store = VectorStore(tmp_path / "vectors")
    rows = [{"id": f"d{n}#0", "doc_id": f"d{n}", "position": 0, "embed_text": text}
            for n, text in enumerate(["Las matrices semejantes tienen el mismo determinante.", "Migración de procesos."])]
    store.sync("chunks", rows, HashingEmbedder())
    assert store.stem_text_as("Spanish")
    purge_vectors(store, ["d0#0"], [], [])
    table = store.table("chunks")
    assert table is not None and table.count_rows() == 1
    assert fts_language(table) == "Spanish"
    hits = table.search("proceso", query_type="fts").limit(5).to_list()  # the Spanish stemmer: proceso ~ procesos
    assert [h["id"] for h in hits] == ["d1#0"]
