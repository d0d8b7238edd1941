"""Recall: a namespace's chunks searched by vector and full text, the hits ranked by the
engine's fusion strategy (`recall.fusion`), hydrated from the graph (entities named in the
query, their mentions, notes and relations), weighted by salience, shaped by sleep mode's
overlay, and degraded to the searches alone when the graph is locked by another process."""

import random
from concurrent.futures import Future
from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np

from mnemo.errors import InvalidQuery
from mnemo.recall.context import context_lines
from mnemo.recall.dates import DaySpan, add_dated, dates_in, favour_dated
from mnemo.recall.fusion import Ranked, fusion_for, reciprocal_rank
from mnemo.recall.gathering import (
    add_entity_chunks,
    add_pages,
    add_ranked,
    apply_salience,
    drop_outside,
    fill_rows,
    named_shares,
)
from mnemo.recall.graph import Hydration
from mnemo.recall.graph_view import hydrate, visible_entities
from mnemo.recall.linked import Themes, Weights, linked_round
from mnemo.recall.note_cards import CardReads, add_card_notes
from mnemo.recall.passage_visibility import GLOBAL_ONLY, hidden_row, now_iso
from mnemo.recall.profiles import profile_round
from mnemo.recall.query_language import notes_not_in_english
from mnemo.recall.rank import Pool, Scored, diversified, salience_weights
from mnemo.recall.results import RecalledItem, RecallResult
from mnemo.recall.search import TimeWindow, reference, rows_by_id
from mnemo.recall.second_round import SecondRound, second_round
from mnemo.recall.settings import Mode, RecallSettings
from mnemo.recall.similarity import check_floor, drop_dissimilar, similarities
from mnemo.recall.table_reads import TableReads
from mnemo.recall.visibility import InboxScopes
from mnemo.refs import entity_ids_in
from mnemo.stores.embedders import Embedder
from mnemo.stores.graph import GraphStore
from mnemo.stores.minilm import one_blas_thread
from mnemo.stores.session import NamespaceSession
from mnemo.stores.vector_table import VectorTable as Table  # one version of the chunks table
from mnemo.stores.vectors import VectorStore

CANDIDATES_PER_ITEM = 3  # candidates ranked for each item returned (summaries and the per-note cap reorder them)


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
        self.random = random.Random(seed)
        settings = settings or RecallSettings()
        self.reads = TableReads(vectors, embedder, settings)
        self.cards = CardReads(vectors)  # notes in another language than the query's (`recall.note_cards`)
        self.settings = settings
        self.inbox = InboxScopes(self.root)

    @property
    def settings(self) -> RecallSettings:
        return self._settings

    @settings.setter
    def settings(self, settings: RecallSettings) -> None:
        """Settings choose the fusion strategy, once (`recall.fusion`); benchmarks set new ones between runs."""
        self._settings = settings
        self.fusion = fusion_for(settings.ranking, self.embedder.name, notes_not_in_english(self.root))
        self.reads.settings = settings

    def recall(
        self, query: str | None = None, context: list[str] | None = None, *, k: int = 10, mode: Mode = "eager",
        as_of: str | None = None, since: str | None = None, until: str | None = None,
        scopes: frozenset[str] = GLOBAL_ONLY, min_similarity: float | None = None,
    ) -> RecallResult:
        """The k most useful memories for a query and/or context entities; remembered passages of
        `scopes` only (notes and global memories always); with `min_similarity`, only passages at
        least that similar to the query (`recall.similarity`)."""
        floor = check_floor(min_similarity, query)
        with one_blas_thread():  # the full-text search runs beside the vector math (`TableReads.hits`)
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
            hits = self.reads.hits(table, query, self.settings.pool, TimeWindow())
        fused = reciprocal_rank(hits, self.settings.ranking.rrf_k).values()
        return [s.row["id"] for s in sorted(fused, key=lambda s: (-s.score, s.row["id"]))[:k]]

    def _recall(
        self, query: str | None, context: list[str] | None, k: int, mode: Mode, as_of: str | None, since: str | None,
        until: str | None, scopes: frozenset[str], floor: float | None,
    ) -> RecallResult:
        _check_request(query, context, mode)
        cards = self._ask_cards(query)  # e5 encodes the query on the cards' thread while it is searched here
        table = self.vectors.open("chunks")
        if table is None:
            problem = self.vectors.problems.get("chunks")
            return RecallResult("", [], [], mode, str(problem) if problem else None)
        s = self.settings
        window, pool = TimeWindow(since, until), Pool(s.ranking.rrf_k)
        names, index = self.reads.names()
        entities = entity_ids_in(context or []) + index.find(query or "")
        dated = dates_in(query, date.today()) if query and not (since or until) and s.ranking.date_weight else None
        vector, ranked, profiles = None, Ranked([]), list[RecalledItem]()
        if query and query.strip():
            vector, ranked, profiles = self._searched(table, pool, query, mode, window, dated)
        degraded, hydration, hidden = None, Hydration(), self.inbox.hidden_docs(scopes)
        if names or entities:
            hops = 2 if mode == "deliberate" else 1
            degraded, hydration = self._hydrate(entities, pool.best(self._size(mode)), hops, as_of, hidden_docs=hidden)
            entities = [e for e in entities if e not in hydration.hidden]
        add_entity_chunks(pool, hydration, entities, not (query and query.strip()), s.ranking.entity_weight)
        add_pages(table, pool, hydration, named_shares(context, index.coverage(query or "")), s.ranking.entity_weight)
        if cards is not None:
            add_card_notes(table, pool, self.cards.answer(cards), s.ranking.card_weight, s.ranking.card_decay,
                           self.reads.held(table))
        fill_rows(table, pool)
        if vector is not None and (s.ranking.neighbour_weight or s.ranking.theme_weight):
            self._add_linked(table, pool, vector, query or "")
        drop_outside(self.root, pool, window, scopes, hidden)
        drop_dissimilar(pool, vector, floor)
        apply_salience(pool, self.salience(), s.ranking.salience_weight)
        if dated and not ranked.weighs_days:  # the learned ranking weighs the named days itself
            favour_dated(pool, dated, s.ranking.date_weight)
        items = self._ranked(table, pool, k, mode, (scopes, hidden), floor, dated, ranked.weighs_days)
        cosines = similarities(pool.rows, [i.id for i in items], vector)
        items = [replace(i, similarity=cosines.get(i.id)) for i in items]
        grounding = self._grounding(entities, items, hydration, index.kinds)
        relations = profiles + self._relation_items(hydration) if mode == "deliberate" else []
        return self._shaped(table, RecallResult("", grounding, items + relations, mode, degraded), hidden)

    def _ask_cards(self, query: str | None) -> Future[list[str]] | None:
        """The lookup of the notes whose cards are nearest the query, started (`recall.note_cards`);
        None when the cards are off or the namespace has none."""
        if not (query and query.strip() and self.settings.ranking.card_weight):
            return None
        return self.cards.ask(query)

    def close(self) -> None:
        """End the worker threads recall started (a later recall starts them again)."""
        self.cards.close()
        self.reads.close()

    def _size(self, mode: Mode) -> int:
        """Candidates each search contributes in this mode."""
        return self.settings.deliberate_pool if mode == "deliberate" else self.settings.pool

    def _searched(self, table: Table, pool: Pool, query: str, mode: Mode, window: TimeWindow,
                  dated: DaySpan | None) -> tuple[np.ndarray, Ranked, list[RecalledItem]]:
        """The pool filled from the query's searches, ranked by the engine's fusion strategy: its
        hits, the passages of the days it names, a second round's hits and the turns profile
        items cite when those are on. Returns the query's vector, the first ranking and the
        profile items."""
        r, size = self.settings.ranking, self._size(mode)
        hits = self.reads.hits(table, query, size, window)
        ranked = self.fusion.rank(hits)
        add_ranked(pool, ranked)
        if dated is not None:  # missed passages of the named days join on the strategy's scale
            scale = min(pool.scores.values(), default=1.0) if ranked.dated_scale is None else ranked.dated_scale
            add_dated(pool, self.reads.dated(table, hits.vector, size, dated), hits.vector, scale)
        if r.second_round_weight and (mode == "deliberate" or r.second_round_eager):
            again = SecondRound.of(r)
            second_round(pool, query, again, lambda text: self._ranked_again(table, query, text, size, window))
        held = self.reads.held(table)
        return hits.vector, ranked, profile_round(self.session, table, held, pool, query, hits.vector, r)

    def _ranked_again(self, table: Table, query: str, text: str, size: int, window: TimeWindow) -> list[Scored]:
        """A second round: the hits of `text` ranked for `query` by the same strategy."""
        return self.fusion.rank(replace(self.reads.hits(table, text, size, window), query=query)).hits

    def _shaped(self, table: Table, result: RecallResult, hidden: frozenset[str]) -> RecallResult:
        """The result as sleep mode's overlay shapes it, with its visible top of mind, source paths and text."""
        from mnemo.recall.sleep_overlay import after_recall, with_source_paths  # builds on this module's types

        shaped = after_recall(self.session, result, result.mode)
        shown = visible_entities(self.graph, self.session, shaped.top_of_mind, hidden, self.settings.graph_wait)
        shaped = replace(shaped, top_of_mind=shown)
        shaped = replace(shaped, items=with_source_paths(shaped.items, lambda ids: self.reads.paths(table, ids)))
        return replace(shaped, text=self._assemble(shaped.items))

    def _ranked(self, table: Table, pool: Pool, k: int, mode: Mode, seen: tuple[frozenset[str], frozenset[str]],
                floor: float | None, period: DaySpan | None = None, weighs_days: bool = False) -> list[RecalledItem]:
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
        if period is not None and mode == "eager" and not weighs_days:  # the notes of a period (`recall.periods`)
            from mnemo.recall.periods import period_ranked

            items = period_ranked(pool, period, k, SleepView.load(self.session), lambda i: self._item(pool, i),
                                  candidates, self.settings.per_note) or items
        return items if floor is not None else self._with_random(table, pool, items, k, seen)

    def _hydrate(self, entities: list[str], hits: list[str], hops: int, as_of: str | None,
                 hidden_docs: frozenset[str] = frozenset()) -> tuple[str | None, Hydration]:
        return hydrate(self.graph, self.session, entities, hits, hops, as_of, self.settings.graph_wait, hidden_docs)

    def _add_linked(self, table: Table, pool: Pool, vector: np.ndarray, query: str) -> None:
        """Notes linked with the best notes and notes of a theme the question matches (`recall.linked`)."""
        themes = Themes.load(self.session)
        if themes is not None:
            r = self.settings.ranking
            linked_round(pool, themes, vector, query, Weights(r.neighbour_weight, r.theme_weight),
                         self.reads.held(table))
            fill_rows(table, pool)

    def salience(self) -> dict[str, float]:
        """Salience per chunk or entity id (0..1), as consolidation writes it; empty if none."""
        return salience_weights(self.root / "salience.json")

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
