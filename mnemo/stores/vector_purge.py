"""Forgetting in LanceDB: the rows go, and so do the bytes that held them.

A LanceDB delete only marks rows deleted: the data file keeps their text, every older version of
the table still returns them (time travel), and compaction rewrites a fragment only when more
than a tenth of it is deleted. So a forget deletes the rows, then rewrites the rest of each
fragment that held one (an update of those rows to themselves, which writes them to a new
fragment: the old one, now wholly deleted, leaves the table), then removes every version but
the latest and every file no version uses, and rebuilds the full-text and id indexes (their
files keep the words and ids of rows deleted since they were built).

It runs while the forget holds the namespace lock exclusively, so no writer is between versions.
A recall reading an older version at that moment can fail once; the next reads the new one.
"""

import warnings
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from mnemo.stores import faults
from mnemo.stores.kept import NOTE_CARDS
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_index import fts_language
from mnemo.stores.vector_ops import fragment_count
from mnemo.stores.vector_table import VectorTable
from mnemo.stores.vectors import TEXT_COLUMN, VectorStore

FRAGMENT_SHIFT = 32  # a row id is its fragment's id shifted left this far, plus its offset in the fragment


@dataclass
class VectorPurge:
    """What a purge removed: rows per table, and the fragments it rewrote."""

    rows: dict[str, int] = field(default_factory=dict)
    fragments: dict[str, int] = field(default_factory=dict)


def forgotten_filter(ids: list[str], docs: list[str]) -> Filter | None:
    """The filter selecting rows by id or by document (None when there is nothing to select)."""
    if ids and docs:
        return Filter.ids(ids) | Filter.docs(docs)
    return Filter.ids(ids) if ids else Filter.docs(docs) if docs else None


def purge_rows(store: VectorStore, name: str, selected: Filter | None, whole: bool = False) -> tuple[int, int]:
    """Delete the rows `where` selects from table `name` so that no file of it holds them any more.
    `whole`: rewrite every fragment, not only those holding a selected row (after a run that was cut
    off once it had deleted rows: which fragments held them is no longer known). Returns (rows
    deleted, fragments rewritten)."""
    where = selected.sql if selected is not None else None
    table = store.table(name)
    if table is None or (where is None and not whole):
        return 0, 0
    fragments = _fragments_of(table, where) if where is not None else set()
    if not fragments and not whole:
        return 0, 0
    deleted = table.count_rows(where) if where is not None else 0
    if deleted:
        faults.point(f"vectors.purge:{name}")
        table.delete(where)
    if whole:
        return deleted, _rewrite_all(table, name)
    for fragment in sorted(fragments):
        _rewrite_fragment(table, fragment, name)
    remove_old_versions(table, name)
    return deleted, len(fragments)


def _rewrite_all(table: Any, name: str) -> int:
    """Write every row of the table to new fragments, then drop what no longer holds a live row."""
    count = fragment_count(table)
    if table.count_rows():
        faults.point(f"vectors.rewrite:{name}")
        table.update(where="true", values_sql={"id": "id"})
    remove_old_versions(table, name)
    return count


def _fragments_of(table: Any, where: str) -> set[int]:
    found = table.search().where(where).with_row_id(True).select(["id"]).limit(None).to_arrow()
    return {row_id >> FRAGMENT_SHIFT for row_id in found.column("_rowid").to_pylist()}


def _rewrite_fragment(table: Any, fragment: int, name: str) -> None:
    """Write the rows left in a fragment to a new one (an update writes the rows it matches anew)."""
    where = f"_rowid >= {fragment << FRAGMENT_SHIFT} AND _rowid < {(fragment + 1) << FRAGMENT_SHIFT}"
    if table.count_rows(where):
        faults.point(f"vectors.rewrite:{name}")
        table.update(where=where, values_sql={"id": "id"})


def remove_old_versions(table: Any, name: str) -> None:
    """Compact the table, keep only its latest version and delete the files no version uses, then
    rebuild its text indexes from what it holds now."""
    faults.point(f"vectors.cleanup:{name}")
    with warnings.catch_warnings():  # LanceDB warns that readers of older versions may fail: intended
        warnings.simplefilter("ignore")
        table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)
        _rebuild_text_indexes(table, name)
        table.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)  # the old indexes' files too


def _rebuild_text_indexes(table: Any, name: str) -> None:
    """The table's full-text index (with the stemmer it had: the notes' language) and id index, built again."""
    language = fts_language(table) or "English"
    for index in table.list_indices():
        faults.point(f"vectors.reindex:{name}")
        if index.index_type == "FTS":
            table.create_fts_index(TEXT_COLUMN, replace=True, language=language)
        elif list(index.columns) == ["id"]:
            table.create_scalar_index("id", replace=True)


CARDS = NOTE_CARDS  # one row per note: its names, opening words and linked notes' names (`recall.note_cards`)


def purge_vectors(store: VectorStore, chunks: list[str], docs: list[str], entities: list[str],
                  whole: bool = False) -> VectorPurge:
    """Purge forgotten chunks (by id or document) and entities from the vector tables (`whole`: see
    `purge_rows`), and the cards of the notes they came from: a card holds a note's opening words,
    which a forgotten passage may be among, and the names of the notes it is linked with, a
    forgotten note's among them (the next ingest makes the cards again from what is left)."""
    report = VectorPurge()
    carded = _carded_docs(store, chunks, docs, whole)
    for name, where in (("chunks", forgotten_filter(chunks, docs)), ("entities", forgotten_filter(entities, [])),
                        (CARDS, forgotten_filter([], carded))):
        rows, fragments = purge_rows(store, name, where, whole)
        if rows:
            report.rows[name], report.fragments[name] = rows, fragments
    return report


def _carded_docs(store: VectorStore, chunks: list[str], docs: list[str], whole: bool) -> list[str]:
    """The notes whose cards go with a forget: the forgotten notes and those of the forgotten
    passages; every carded note after a run that was cut off (its passages may be gone already)."""
    cards = store.open(CARDS) if chunks or docs else None
    if cards is None:
        return []
    if whole:
        return sorted(set(cards.select(["doc_id"])["doc_id"].to_pylist()))
    passages = store.open("chunks")
    held = passages.select(["doc_id"], Filter.ids(chunks))["doc_id"].to_pylist() if passages and chunks else []
    return sorted({*docs, *held, *_naming(cards, docs)})


def _naming(cards: VectorTable, docs: list[str]) -> set[str]:
    """The notes whose cards name a forgotten note among the notes they are linked with: every card
    holding the forgotten note's first name (the text before its card's first `; ` or `. `)."""
    if not docs:
        return set()
    rows = cards.select(["doc_id", "embed_text"]).to_pylist()
    gone = {r["embed_text"].split(". ", 1)[0].split("; ", 1)[0] for r in rows if r["doc_id"] in set(docs)}
    return {r["doc_id"] for r in rows if any(name and name in r["embed_text"] for name in gone)}
