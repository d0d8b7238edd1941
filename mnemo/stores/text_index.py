"""A throwaway full-text index: BM25 over whole texts, each under a key, in LanceDB's full-text
index in a folder of its own (what an evaluation compares recall against)."""

from pathlib import Path

from mnemo.stores.vectors import import_lancedb


class TextIndex:
    def __init__(self, root: Path, keys: list[str], texts: list[str], language: str = "English") -> None:
        """`language`: the stemmer and stop words of the index (LanceDB's names: English, Spanish, ...)."""
        import pyarrow as pa

        data = pa.table({"path": keys, "text": texts})
        self.table = import_lancedb().connect(str(root)).create_table("notes", data)
        self.table.create_fts_index("text", language=language)

    def search(self, query: str, k: int) -> list[str]:
        """The keys of the k texts that best match the full-text query, best first."""
        rows = self.table.search(query, query_type="fts", fts_columns="text").select(["path", "_score"]).limit(k)
        return [r["path"] for r in rows.to_list()]
