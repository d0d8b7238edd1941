"""Recall: hybrid search (vector + full-text, fused by reciprocal rank) over a namespace's
chunks, hydrated from the graph (entities named in the query, their mentions and relations,
neighbouring turns), weighted by salience, and degraded to vectors + full-text when the
graph is locked by another process."""

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.documents import normalize_name
from mnemo.errors import InvalidQuery
from mnemo.recall.context import context_lines
from mnemo.recall.dates import DaySpan, add_dated, dates_in, favour_dated
from mnemo.recall.graph import Hydration
from mnemo.recall.graph_view import hydrate, visible_entities
from mnemo.recall.held import refreshed
from mnemo.recall.learned import between_people, fits, learned_scores
from mnemo.recall.linked import Themes, Weights, linked_round
from mnemo.recall.passage_visibility import GLOBAL_ONLY, hidden_row, now_iso
from mnemo.recall.profiles import profile_round
from mnemo.recall.rank import (
    Pool,
    Scored,
    diversified,
    linear_ranked,
    ranked_hits,
    rows_around,
    said_by_named,
    salience_weights,
    signals_of,
    weights_of,
)
from mnemo.recall.results import RecalledItem, RecallResult
from mnemo.recall.search import (
    HeldChunks,
    NameIndex,
    TimeWindow,
    entity_names,
    lexical,
    reference,
    rows_by_id,
    semantic,
)
from mnemo.recall.second_round import SecondRound, second_round
from mnemo.recall.settings import Mode, RecallSettings
from mnemo.recall.similarity import check_floor, drop_dissimilar, similarities
from mnemo.recall.visibility import InboxScopes
from mnemo.refs import entity_ids_in
from mnemo.stores.embedders import Embedder
from mnemo.stores.graph import GraphStore
from mnemo.stores.minilm import one_blas_thread
from mnemo.stores.session import NamespaceSession
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vector_filter import Filter
from mnemo.stores.vector_table import VectorTable as Table  # one version of the chunks table
from mnemo.stores.vectors import VectorStore

PAGE_PASSAGES = 3  # passages of a named entity's own note that join a query's pool
CANDIDATES_PER_ITEM = 3  # candidates ranked for each item returned (summaries and the per-note cap reorder them)


def _named_shares(context: list[str] | None, in_query: dict[str, float]) -> dict[str, float]:
    """Entities whose notes join the pool, with their weight: a reference in the context counts
    half, a name in the query the share of the query it covers."""
    shares = dict.fromkeys(entity_ids_in(context or []), 0.5)
    for entity, share in in_query.items():
        shares[entity] = max(shares.get(entity, 0.0), share)
    return shares


def _check_request(query: str | None, context: list[str] | None, mode: str) -> None:
    if not (query and query.strip()) and not context:
        raise InvalidQuery("the query is empty" if query is not None else "recall needs a query or a context")
    if mode not in ("eager", "deliberate"):
        raise InvalidQuery(f"unknown recall mode {mode!r}: use 'eager' or 'deliberate'")


class RecallEngine:
    """Hybrid retrieval over one namespace, hydrated from its graph when the graph is free."""

    def __init__(self, root: Path, vectors: VectorStore, graph: GraphStore, embedder: Embedder,
                 settings: RecallSettings | None = None, seed: int | None = None,
                 session: NamespaceSession | None = None) -> None:
        self.root = Path(root)
        self.session = session or NamespaceSession(self.root)  # what recall reads on every call, kept
        self.vectors = vectors
        self.graph = graph
        self.embedder = embedder
        self.settings = settings or RecallSettings()
        self.random = random.Random(seed)
        self._names_cache: tuple[int | None, list[tuple[str, str, str]], NameIndex] | None = None
        self._worker: ThreadPoolExecutor | None = None
        self._held: tuple[int, HeldChunks | None] | None = None
        self.inbox = InboxScopes(self.root)

    def recall(
        self, query: str | None = None, context: list[str] | None = None, *, k: int = 10, mode: Mode = "eager",
        as_of: str | None = None, since: str | None = None, until: str | None = None,
        scopes: frozenset[str] = GLOBAL_ONLY, min_similarity: float | None = None,
    ) -> RecallResult:
        """The k most useful memories for a query and/or context entities; remembered passages of
        `scopes` only (notes and global memories always); with `min_similarity`, only passages at
        least that similar to the query (`recall.similarity`)."""
        floor = check_floor(min_similarity, query)
        with one_blas_thread():  # the full-text search runs beside the vector math (`_search`)
            return self._recall(query, context, k, mode, as_of, since, until, scopes, floor)

    def search(self, query: str, k: int = 10) -> list[str]:
        """Ids of the k chunks best ranked by eager recall's two searches alone (vector and
        full-text, run as recall runs them), fused by reciprocal rank: no turns around the hits,
        graph or salience."""
        if not query.strip():
            raise InvalidQuery("the query is empty")
        table = self.vectors.open("chunks")
        if table is None:
            return []
        with one_blas_thread():
            _, lexical_rows, semantic_rows = self._hits(table, query, self.settings.pool, TimeWindow())
        return self._fuse(Pool(self.settings.ranking.rrf_k), lexical_rows, semantic_rows).best(k)

    def _recall(
        self, query: str | None, context: list[str] | None, k: int, mode: Mode, as_of: str | None, since: str | None,
        until: str | None, scopes: frozenset[str], floor: float | None,
    ) -> RecallResult:
        _check_request(query, context, mode)
        table = self.vectors.open("chunks")
        if table is None:
            problem = self.vectors.problems.get("chunks")
            return RecallResult("", [], [], mode, str(problem) if problem else None)
        s = self.settings
        window = TimeWindow(since, until)
        pool = Pool(s.ranking.rrf_k)
        size = s.deliberate_pool if mode == "deliberate" else s.pool
        names, index = self._names()
        entities = entity_ids_in(context or []) + index.find(query or "")
        dated = dates_in(query, date.today()) if query and not (since or until) and s.ranking.date_weight else None
        vector, profiles = None, list[RecalledItem]()
        if query and query.strip():
            vector = self._search(table, pool, query, size, window)
            self._search_dated(table, pool, vector, size, dated)
            if s.ranking.second_round_weight and (mode == "deliberate" or s.ranking.second_round_eager):
                second_round(pool, query, SecondRound.of(s.ranking),
                             lambda text: self._scored(table, query, self._hits(table, text, size, window))[0])
            profiles = profile_round(self.session, table, self._held_chunks(table), pool, query, vector, s.ranking)
        degraded, hydration, hidden = None, Hydration(), self.inbox.hidden_docs(scopes)
        if names or entities:
            hops = 2 if mode == "deliberate" else 1
            degraded, hydration = self._hydrate(entities, pool.best(size), hops, as_of, hidden_docs=hidden)
            entities = [e for e in entities if e not in hydration.hidden]
        self._add_entity_chunks(pool, hydration, entities, context_only=not (query and query.strip()))
        self._add_pages(table, pool, hydration, _named_shares(context, index.coverage(query or "")))
        self._fill_rows(table, pool)
        if s.ranking.fusion == "rrf" and s.ranking.speaker_weight and query:
            self._favour_speakers(pool, query)
        if s.ranking.episode_weight:
            self._add_episodes(pool)
        if vector is not None and (s.ranking.neighbour_weight or s.ranking.theme_weight):
            self._add_linked(table, pool, vector, query or "")
        self._drop_outside(pool, window, scopes, hidden)
        drop_dissimilar(pool, vector, floor)
        self._apply_salience(pool)
        if dated and not pool.learned:  # the learned ranking weighs the named days itself
            favour_dated(pool, dated, s.ranking.date_weight)
        items = self._ranked(table, pool, k, mode, (scopes, hidden), floor, dated)
        cosines = similarities(pool.rows, [i.id for i in items], vector)
        items = [replace(i, similarity=cosines.get(i.id)) for i in items]
        grounding = self._grounding(entities, items, hydration, index.kinds)
        relations = profiles + self._relation_items(hydration) if mode == "deliberate" else []
        from mnemo.recall.sleep_overlay import after_recall, with_source_paths  # builds on this module's types

        shaped = after_recall(self.session, RecallResult("", grounding, items + relations, mode, degraded), mode)
        shown = visible_entities(self.graph, self.session, shaped.top_of_mind, hidden, self.settings.graph_wait)
        shaped = replace(shaped, top_of_mind=shown)
        shaped = replace(shaped, items=with_source_paths(shaped.items, lambda ids: self._paths(table, ids)))
        return replace(shaped, text=self._assemble(shaped.items))

    def _paths(self, table: Table, ids: list[str]) -> dict[str, str]:
        """Chunk id -> its note's path: from the held rows of a small table, else one lookup."""
        held = self._held_chunks(table)
        if held is not None:
            return held.column(ids, "path")
        return {i: r["path"] for i, r in rows_by_id(table, ids, ["id", "path"]).items()}

    def _ranked(self, table: Table, pool: Pool, k: int, mode: Mode, seen: tuple[frozenset[str], frozenset[str]],
                floor: float | None, period: DaySpan | None = None) -> list[RecalledItem]:
        """The k items recall returns, best first: in eager mode passages and sleep mode's summaries
        on one score (`sleep_overlay.eager_ranked`), then at most `per_note` passages of a note
        before the other notes' (`diversified`), then a few salient memories for serendipity."""
        from mnemo.recall.sleep_overlay import SleepView, eager_ranked

        candidates = [
            self._item(pool, i) for i in pool.best(max(k * CANDIDATES_PER_ITEM, self.settings.ranking.per_note_window))
        ]
        if mode == "eager":
            candidates = eager_ranked(SleepView.load(self.session), candidates)
        notes = {i.id: i.doc_id for i in candidates if i.kind == "chunk" and pool.rows[i.id].get("kind") != "chat"}
        items = diversified(candidates, self.settings.per_note, notes)[:k]
        if period is not None and mode == "eager" and not pool.learned:  # the notes of a period (`recall.periods`)
            from mnemo.recall.periods import period_ranked

            items = period_ranked(pool, period, k, SleepView.load(self.session), lambda i: self._item(pool, i),
                                  candidates, self.settings.per_note) or items
        return items if floor is not None else self._with_random(table, pool, items, k, seen)

    def _names(self) -> tuple[list[tuple[str, str, str]], NameIndex]:
        """Entity names and aliases with their index, cached until the entities table changes."""
        table = self.vectors.open("entities")
        version = None if table is None else table.version
        if self._names_cache is None or self._names_cache[0] != version:
            names = entity_names(table)
            self._names_cache = (version, names, NameIndex(names))
        return self._names_cache[1], self._names_cache[2]

    def _held_chunks(self, table: Table) -> HeldChunks | None:
        """The chunks table's vectors and links, held per table version while the table is small."""
        version = table.version
        if self._held is None or self._held[0] != version:
            small = self.settings.hold_rows and table.count() <= self.settings.hold_rows
            self._held = (version, refreshed(self._held[1] if self._held else None, table) if small else None)
        return self._held[1]

    def _background(self) -> ThreadPoolExecutor:
        """Worker threads: the full-text search runs there while the query is embedded and
        searched by vector here (LanceDB and torch release the GIL)."""
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=4, thread_name_prefix="mnemo-recall")
        return self._worker

    def _search(self, table: Table, pool: Pool, query: str, size: int, window: TimeWindow) -> np.ndarray:
        """BM25 and vector hits fused by reciprocal rank; optionally a second vector search
        from the query moved toward the first round's best hits (pseudo-relevance feedback).
        Returns the query's vector."""
        s = self.settings
        vector, lexical_rows, semantic_rows = self._hits(table, query, size, window)
        if s.ranking.feedback_docs:
            first = self._fuse(Pool(s.ranking.rrf_k), lexical_rows, semantic_rows)
            top = [np.asarray(first.rows[i]["vector"], dtype=np.float32) for i in first.best(s.ranking.feedback_docs)]
            moved = vector + s.ranking.feedback_weight * np.mean(top, axis=0)
            semantic_rows = semantic(table, moved / np.linalg.norm(moved), size, window)
        if s.ranking.fusion != "rrf":
            hits, pool.learned = self._scored(table, query, (vector, lexical_rows, semantic_rows))
            for hit in hits:
                pool.add(hit.row["id"], hit.score, hit.reasons[0], hit.row)
                pool.reasons[hit.row["id"]].extend(hit.reasons[1:])
        else:
            self._fuse(pool, lexical_rows, semantic_rows)
        return vector

    def _search_dated(self, table: Table, pool: Pool, vector: np.ndarray, size: int, dated: DaySpan | None) -> None:
        """The passages of the days the question names join the pool (`dates.add_dated`)."""
        if dated is not None:
            held = self._held_chunks(table) if self.settings.exact_vectors else None
            rows = semantic(table, vector, size, TimeWindow(dated.since, dated.until, dated_only=True), held)
            r = self.settings.ranking
            # the scored fusion's rows by their cosine term alone; the others' below every hit, by cosine
            scale = min(pool.scores.values(), default=1.0) if pool.learned or r.fusion == "rrf" else r.cosine_weight
            add_dated(pool, rows, vector, scale)

    def _fuse(self, pool: Pool, lexical_rows: list[dict[str, Any]], semantic_rows: list[dict[str, Any]]) -> Pool:
        """The pool with both searches' hits added by weighted reciprocal rank."""
        pool.ranked(lexical_rows, self.settings.ranking.lexical_weight, "lexical")
        pool.ranked(semantic_rows, self.settings.ranking.semantic_weight, "semantic")
        return pool

    def _hits(
        self, table: Table, query: str, size: int, window: TimeWindow
    ) -> tuple[np.ndarray, list[dict[str, Any]], list[dict[str, Any]]]:
        """The query's vector, then its full-text and vector hits, best first: the full-text search
        runs on a worker thread while the query is embedded and searched by vector here."""
        held = self._held_chunks(table)  # the rows of a small table, for both searches' hits
        lexical_rows = self._background().submit(lexical, table, query, size, window, held)
        vector = self.embedder.encode_query([query])[0]
        semantic_rows = semantic(table, vector, size, window, held if self.settings.exact_vectors else None)
        return vector, lexical_rows.result(), semantic_rows

    def _scored(self, table: Table, query: str,
                hits: tuple[np.ndarray, list[dict[str, Any]], list[dict[str, Any]]]) -> tuple[list[Scored], bool]:
        """A search's hits (as `_hits` returns them) ranked for `query`, and whether by the learned
        ranking's trees (`recall.learned`: with fusion `learned`, when most hits are turns of
        conversations between people, the kind of text the trees were fitted on, and the trees were
        fitted with this embedder), else
        by the scored fusion's one linear score of their signals (`recall.rank`)."""
        vector, lexical_rows, semantic_rows = hits
        r, held = self.settings.ranking, self._held_chunks(table)
        around = rows_around(table, lexical_rows + semantic_rows,
                             2 if r.fusion == "learned" or r.second_neighbour_cosine_weight else 1, held)
        found = signals_of(lexical_rows, semantic_rows, around, vector, query, r.rrf_k)
        people = sum(between_people(row) for row in found.rows)
        if r.fusion == "learned" and people * 2 > len(found.rows) and fits(r.ranker, self.embedder.name):
            return ranked_hits(found, learned_scores(found, vector, query, held, r.ranker)), True
        return linear_ranked(found, weights_of(r)), False

    def _favour_speakers(self, pool: Pool, query: str) -> None:
        """Turns said by someone the query names gain (chat chunks carry their speaker)."""
        padded = f" {normalize_name(query)} "
        for row_id in pool.scores:
            if said_by_named(pool.rows[row_id], padded):
                pool.scores[row_id] *= 1.0 + self.settings.ranking.speaker_weight
                pool.reasons[row_id].append("speaker")

    def _add_episodes(self, pool: Pool) -> None:
        """Hits from a document (an episode, a note) that has several good hits gain together."""
        by_doc: dict[str, list[float]] = {}
        for row_id, score in pool.scores.items():
            by_doc.setdefault(pool.rows[row_id]["doc_id"], []).append(score)
        doc_score = {d: sum(sorted(v, reverse=True)[:3]) for d, v in by_doc.items()}
        for row_id in pool.scores:
            pool.scores[row_id] += self.settings.ranking.episode_weight * doc_score[pool.rows[row_id]["doc_id"]]

    def _hydrate(self, entities: list[str], hits: list[str], hops: int, as_of: str | None,
                 hidden_docs: frozenset[str] = frozenset()) -> tuple[str | None, Hydration]:
        return hydrate(self.graph, self.session, entities, hits, hops, as_of, self.settings.graph_wait, hidden_docs)

    def _add_entity_chunks(self, pool: Pool, hydration: Hydration, entities: list[str], context_only: bool) -> None:
        """Chunks about the matched entities: with a query, hits that mention them gain; with
        context alone, their latest mentions are the answer."""
        weight = self.settings.ranking.entity_weight * (1.0 if context_only else 0.5)
        for entity, chunks in hydration.entity_chunks.items():
            factor = 1.0 if entity in entities else 0.5
            for rank, chunk in enumerate(chunks):
                if context_only or chunk in pool.scores:
                    pool.add(chunk, weight * factor / (self.settings.ranking.rrf_k + rank + 1), "graph")

    def _add_pages(self, table: Table, pool: Pool, hydration: Hydration, named: dict[str, float]) -> None:
        """The first passages of the notes of entities the query names (by name, alias or the
        text of links to them) join the pool, the first with the best hit's score times the share
        of the question the name covers (whatever the fusion's scale): a note can be found by
        what others call it, and a name that is one word of a longer question barely moves it."""
        best = self.settings.ranking.entity_weight * max(pool.scores.values(), default=1.0)
        for entity, doc in sorted(hydration.page_docs.items()):
            if entity not in named:
                continue
            rows = table.select(["id", "position"], Filter.doc(doc)).to_pylist()
            for rank, row in enumerate(sorted(rows, key=lambda r: r["position"])[:PAGE_PASSAGES]):
                pool.add(row["id"], best * named[entity] / (rank + 1), "page")

    def _fill_rows(self, table: Table, pool: Pool) -> None:
        missing = [i for i in pool.scores if i not in pool.rows]
        if missing:
            pool.rows.update(rows_by_id(table, missing))
        for gone in [i for i in pool.scores if i not in pool.rows]:
            del pool.scores[gone]

    def _add_linked(self, table: Table, pool: Pool, vector: np.ndarray, query: str) -> None:
        """Notes linked with the best notes and notes of a theme the question matches (`recall.linked`)."""
        themes = Themes.load(self.session)
        if themes is not None:
            r = self.settings.ranking
            linked_round(pool, themes, vector, query, Weights(r.neighbour_weight, r.theme_weight),
                         self._held_chunks(table))
            self._fill_rows(table, pool)

    def _drop_outside(self, pool: Pool, window: TimeWindow, scopes: frozenset[str], hidden: frozenset[str]) -> None:
        """Drop what lies outside the time window, what has been forgotten, expired memories and
        memories of scopes not asked for (by their rows' metadata, and by document: `hidden`)."""
        forgotten, now = Tombstones.load(self.root), now_iso()
        for row_id in list(pool.scores):
            row = pool.rows[row_id]
            stamp = row.get("timestamp") or ""
            if stamp and ((window.since and stamp < window.since) or (window.until and stamp > window.until)):
                del pool.scores[row_id]
            elif forgotten.hides(row_id, row.get("doc_id", "")) or hidden_row(row, now, scopes, hidden):
                del pool.scores[row_id]

    def salience(self) -> dict[str, float]:
        """Salience per chunk or entity id (0..1), as consolidation writes it; empty if none."""
        return salience_weights(self.root / "salience.json")

    def _apply_salience(self, pool: Pool) -> None:
        weights = self.salience()
        for row_id in pool.scores:
            value = weights.get(row_id) or weights.get(pool.rows[row_id].get("doc_id", ""), 0.0)
            if value:
                pool.scores[row_id] *= 1.0 + self.settings.ranking.salience_weight * value
                if value >= 0.5:
                    pool.reasons[row_id].append("salient")

    def _with_random(
        self, table: Table, pool: Pool, items: list[RecalledItem], k: int, seen: tuple[frozenset[str], frozenset[str]]
    ) -> list[RecalledItem]:
        """Swap the tail for a few salient memories the query did not reach (serendipity)."""
        share = self.settings.random_share
        weights = {i: v for i, v in self.salience().items() if v >= 0.5}
        taken = {i.id for i in items}
        spare = [i for i in sorted(weights) if i not in taken]
        count = min(len(spare), int(round(k * share)))
        if not count:
            return items
        now, drawn = now_iso(), rows_by_id(table, self.random.sample(spare, count))
        rows = {i: r for i, r in drawn.items() if not hidden_row(r, now, *seen)}
        for row_id, row in rows.items():
            pool.rows.setdefault(row_id, row)
        extra = [RecalledItem.from_row(r, 0.0, ["random"]) for r in rows.values()]
        return items[: k - len(extra)] + extra

    def _item(self, pool: Pool, row_id: str) -> RecalledItem:
        return RecalledItem.from_row(pool.rows[row_id], round(pool.scores[row_id], 6), pool.reasons[row_id])

    def _grounding(
        self, entities: list[str], items: list[RecalledItem], hydration: Hydration, kinds: dict[str, str]
    ) -> list[str]:
        refs = []
        for item in items:
            for entity, kind in hydration.chunk_entities.get(item.id, []):
                refs.append(reference(entity, kind))
        for entity in entities:
            if entity in kinds or entity in hydration.entity_chunks:
                refs.append(reference(entity, kinds.get(entity, entity.split("_", 1)[0])))
        return list(dict.fromkeys(refs))

    def _relation_items(self, hydration: Hydration) -> list[RecalledItem]:
        items = []
        for r in hydration.relations:
            label = (r["role"] or r["rel"]).lower()
            items.append(RecalledItem(f"{r['src']}|{label}|{r['dst']}", "relation", f"{r['src']} {label} {r['name']}",
                                      0.0, reasons=["graph"]))
        return items

    def _assemble(self, items: list[RecalledItem]) -> str:
        return "\n".join(context_lines(items, self.settings.token_budget))  # type: ignore[arg-type]
