"""What joins recall's candidates after the searches (a strategy's ranked hits, chunks about the
entities the query names, those entities' own notes) and what leaves them (what lies outside the
time window, is forgotten, expired or of a scope not asked for), and the salience lift."""

from pathlib import Path

from mnemo.recall.fusion import Ranked
from mnemo.recall.graph import Hydration
from mnemo.recall.passage_visibility import hidden_row, now_iso
from mnemo.recall.rank import Pool
from mnemo.recall.search import TimeWindow, rows_by_id
from mnemo.refs import entity_ids_in
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_table import VectorTable

PAGE_PASSAGES = 3  # passages of a named entity's own note that join a query's pool


def add_ranked(pool: Pool, ranked: Ranked) -> None:
    """A search's ranked hits join the pool with their scores and reasons."""
    for hit in ranked.hits:
        pool.add(hit.row["id"], hit.score, hit.reasons[0], hit.row)
        pool.reasons[hit.row["id"]].extend(hit.reasons[1:])


def named_shares(context: list[str] | None, in_query: dict[str, float]) -> dict[str, float]:
    """Entities whose notes join the pool, with their weight: a reference in the context counts
    half, a name in the query the share of the query it covers."""
    shares = dict.fromkeys(entity_ids_in(context or []), 0.5)
    for entity, share in in_query.items():
        shares[entity] = max(shares.get(entity, 0.0), share)
    return shares


def add_entity_chunks(pool: Pool, hydration: Hydration, entities: list[str], context_only: bool,
                      entity_weight: float) -> None:
    """Chunks about the matched entities: with a query, hits that mention them gain; with
    context alone, their latest mentions are the answer."""
    weight = entity_weight * (1.0 if context_only else 0.5)
    for entity, chunks in hydration.entity_chunks.items():
        factor = 1.0 if entity in entities else 0.5
        for rank, chunk in enumerate(chunks):
            if context_only or chunk in pool.scores:
                pool.add(chunk, weight * factor / (pool.rrf_k + rank + 1), "graph")


def add_pages(table: VectorTable, pool: Pool, hydration: Hydration, named: dict[str, float],
              entity_weight: float) -> None:
    """The first passages of the notes of entities the query names (by name, alias or the
    text of links to them) join the pool, the first with the best hit's score times the share
    of the question the name covers (whatever the fusion's scale): a note can be found by
    what others call it, and a name that is one word of a longer question barely moves it."""
    best = entity_weight * max(pool.scores.values(), default=1.0)
    for entity, doc in sorted(hydration.page_docs.items()):
        if entity not in named:
            continue
        rows = table.select(["id", "position"], Filter.doc(doc)).to_pylist()
        for rank, row in enumerate(sorted(rows, key=lambda r: r["position"])[:PAGE_PASSAGES]):
            pool.add(row["id"], best * named[entity] / (rank + 1), "page")


def fill_rows(table: VectorTable, pool: Pool) -> None:
    """The rows of candidates known by id alone are read; candidates with no row leave."""
    missing = [i for i in pool.scores if i not in pool.rows]
    if missing:
        pool.rows.update(rows_by_id(table, missing))
    for gone in [i for i in pool.scores if i not in pool.rows]:
        del pool.scores[gone]


def drop_outside(root: Path, pool: Pool, window: TimeWindow, scopes: frozenset[str], hidden: frozenset[str]) -> None:
    """Drop what lies outside the time window, what has been forgotten, expired memories and
    memories of scopes not asked for (by their rows' metadata, and by document: `hidden`)."""
    forgotten, now = Tombstones.load(root), now_iso()
    for row_id in list(pool.scores):
        row = pool.rows[row_id]
        stamp = row.get("timestamp") or ""
        if stamp and ((window.since and stamp < window.since) or (window.until and stamp > window.until)):
            del pool.scores[row_id]
        elif forgotten.hides(row_id, row.get("doc_id", "")) or hidden_row(row, now, scopes, hidden):
            del pool.scores[row_id]


def apply_salience(pool: Pool, weights: dict[str, float], salience_weight: float) -> None:
    """Candidates (or their notes) that consolidation found salient gain; very salient ones say so."""
    for row_id in pool.scores:
        value = weights.get(row_id) or weights.get(pool.rows[row_id].get("doc_id", ""), 0.0)
        if value:
            pool.scores[row_id] *= 1.0 + salience_weight * value
            if value >= 0.5:
                pool.reasons[row_id].append("salient")
