"""`VectorStore.sync_groups`: a sync that makes and compares only the rows of changed groups, on
real LanceDB tables in temp dirs, checked against a plain `sync` of every row."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vectors import RowGroup, VectorStore, id_filter

EMBEDDER = HashingEmbedder(32)


def doc_rows(doc: str, texts: list[str]) -> list[dict[str, Any]]:
    return [{"id": f"{doc}-{n}", "doc_id": doc, "embed_text": text, "title": doc.upper()} for n, text in enumerate(texts)]


class Docs:
    """Documents as row groups, counting which groups had their rows made."""

    def __init__(self, docs: dict[str, list[str]]) -> None:
        self.docs = dict(docs)
        self.made: list[str] = []

    def maker(self, doc: str) -> Callable[[], list[dict[str, Any]]]:
        def rows() -> list[dict[str, Any]]:
            self.made.append(doc)
            return doc_rows(doc, self.docs[doc])
        return rows

    def groups(self) -> list[RowGroup]:
        self.made = []
        return [RowGroup(doc, json.dumps(texts), len(texts), self.maker(doc)) for doc, texts in self.docs.items()]

    def rows(self) -> list[dict[str, Any]]:
        return [row for doc, texts in self.docs.items() for row in doc_rows(doc, texts)]


def reference(tmp_path: Path, docs: Docs, name: str) -> list[tuple[str, str, str]]:
    """What a plain sync of every row leaves in a fresh table."""
    store = VectorStore(tmp_path / name)
    store.sync("chunks", docs.rows(), EMBEDDER)
    return store.dump("chunks")


def test_only_changed_groups_are_made_and_the_table_ends_as_a_full_sync_leaves_it(tmp_path: Path) -> None:
    docs = Docs({"a": ["alpha one", "alpha two"], "b": ["beta"], "c": ["gamma one", "gamma two", "gamma three"]})
    store = VectorStore(tmp_path / "store")
    first = store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert (first.embedded, first.total, sorted(docs.made)) == (6, 6, ["a", "b", "c"])
    assert store.dump("chunks") == reference(tmp_path, docs, "ref0")

    docs.docs["b"] = ["beta, edited", "beta again"]
    del docs.docs["c"]
    docs.docs["d"] = ["delta"]
    second = store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert sorted(docs.made) == ["b", "d"]  # a is neither made nor compared
    assert (second.embedded, second.deleted, second.total) == (3, 3, 5)  # b-0 changed, b-1 and d-0 new; c's three gone
    assert store.dump("chunks") == reference(tmp_path, docs, "ref1")

    again = store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert docs.made == [] and (again.embedded, again.updated, again.deleted, again.total) == (0, 0, 0, 5)


def test_a_table_written_since_or_another_embedder_or_a_damaged_record_makes_every_group(tmp_path: Path) -> None:
    docs = Docs({"a": ["alpha one", "alpha two"], "b": ["beta"]})
    store = VectorStore(tmp_path / "store")
    store.sync_groups("chunks", docs.groups(), EMBEDDER)
    expected = store.dump("chunks")

    table = store.table("chunks")
    assert table is not None
    table.delete(id_filter(["a-1"]))  # another writer (as `forget` deletes rows)
    restored = store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert sorted(docs.made) == ["a", "b"] and restored.embedded == 1
    assert store.dump("chunks") == expected

    other = HashingEmbedder(32)
    other.name = "another model"  # of the same dimension
    store.sync_groups("chunks", docs.groups(), other)
    assert sorted(docs.made) == ["a", "b"]
    store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert sorted(docs.made) == ["a", "b"] and store.dump("chunks") == expected

    (tmp_path / "store" / "chunks.groups.json").write_text("{not json", encoding="utf-8")
    store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert sorted(docs.made) == ["a", "b"] and store.dump("chunks") == expected
    store.sync_groups("chunks", docs.groups(), EMBEDDER)
    assert docs.made == []  # the record written again
