"""MemoryClient: how an assistant uses mnemo — remember, recall, forget, get_entity; save, read,
exists, list, append by title; get_memory, get_all, clear by room (a room is a scope).

    client = MemoryClient(namespace="sam")
    client.remember("Had lunch with person_id:alice_chen at Café Lusitano")
    client.recall("Who did I have lunch with?").text

Every call is scoped to one namespace, one that mnemo.yaml lists (any other name is refused
with UnknownNamespace; the first `remember` creates a configured namespace's folder).
Remembered text is written durably to the namespace's inbox and is recallable by the next
recall, in any process; the ingest job (started by the inbox sensor) adds its entities and
relations to the graph. What is done with memories (remember, save by title, status, expiry,
forgetting them) is `mnemo.memories`; the client adds recall, entities and the other forgets.
"""

import builtins
import datetime as dt
import json
from pathlib import Path
from typing import Any

from mnemo.config import MnemoConfig, load_config, validate_namespace
from mnemo.errors import MnemoError
from mnemo.ingest.embedder_choice import namespace_embedder_settings
from mnemo.maintenance.forget import ForgetReport, ForgetStores, apply_forget, entity_pages, resume_forget
from mnemo.memories.live import LiveMemories
from mnemo.memories.remember import check_scope
from mnemo.namespaces import check_ingested, configured_namespace
from mnemo.recall.engine import RecallEngine
from mnemo.recall.entity_history import page_observations, property_history
from mnemo.recall.graph_view import current_view
from mnemo.recall.limit import DEFAULT_LIMIT
from mnemo.recall.passage_visibility import visible_scopes
from mnemo.recall.results import RecallResult
from mnemo.recall.settings import Mode, RecallSettings
from mnemo.recall.sleep_overlay import record_lookup
from mnemo.recall.time_bounds import check_time_bounds, until_bound
from mnemo.recall.visibility import Hidden
from mnemo.refs import parse_ref
from mnemo.sources.memory_files import Memory
from mnemo.stores.embedders import Embedder, build_embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vectors import VectorStore
from ontology import Ontology, load_ontology

ENTITY_WAIT = 5.0


def _forget_request(memory: str | None, entity: str | None, properties: list[str] | None,
                    relations: list[str] | None) -> dict[str, Any]:
    """What a forget of one memory or entity asks, as its journal keeps it ({} for the others)."""
    if memory is not None:
        return {"memory": memory}
    if entity is not None:
        return {"entity": parse_ref(entity).entity_id, "properties": sorted(properties or []),
                "relations": sorted(relations or [])}
    return {}


def recall_limit(k: int | None, limit: int | None) -> int:
    """How many items recall returns: `limit`, or `k` (its older name); both only when equal."""
    if k is not None and limit is not None and k != limit:
        raise MnemoError(f"give limit or k (the same option), not both: limit={limit}, k={k}")
    chosen = limit if limit is not None else k if k is not None else DEFAULT_LIMIT
    if isinstance(chosen, bool) or not isinstance(chosen, int) or chosen < 1:
        raise MnemoError(f"invalid limit {chosen!r}: give a positive whole number")
    return chosen


class MemoryClient:
    """One namespace's memory: remember, recall, forget and look up entities."""

    def __init__(self, namespace: str, config: MnemoConfig | str | Path | None = None, *,
                 embedder: Embedder | None = None, ontology: Ontology | None = None,
                 settings: RecallSettings | None = None) -> None:
        validate_namespace(namespace)
        self.config = config if isinstance(config, MnemoConfig) else load_config(config)
        self.namespace = configured_namespace(self.config, namespace)
        self.config.check_holds(self.namespace)
        self.files = NamespaceFiles(self.config.data_root(self.namespace), self.namespace)
        self.ontology = ontology or load_ontology()
        self.embedder = embedder or build_embedder(namespace_embedder_settings(self.config, self.files.root))
        self.vectors = VectorStore(self.files.vectors_path)
        self.graph = GraphStore(self.files.graph_path, self.ontology, engine=self.config.graph.engine)
        self.engine = RecallEngine(self.files.root, self.vectors, self.graph, self.embedder, settings,
                                   session=self.files.session)
        self.live = LiveMemories(self.forget_stores())  # remember, save, read and forget memories
        self.titled = self.live.titled

    # -- remember -----------------------------------------------------------------------

    def remember(self, text: str, entities: list[Any] | None = None, *, expires_at: str | dt.datetime | None = None,
                 ttl: float | None = None, scope: str = "global") -> Memory:
        """Write a memory to the inbox durably, then make it recallable at once (status
        `recallable`); its entities and relations join the graph at the next ingest run. With
        `expires_at` (ISO time; UTC when it has no zone) or `ttl` (seconds), recall stops
        returning it then, and `forget(expired=True)` or sleep mode purges it. `scope`: `global`,
        `project:<name>` or `session:<id>`; recall returns a scoped memory only to a caller that
        names its project or session."""
        return self.live.remember(text, entities, expires_at, ttl, scope)

    def memory(self, memory_id: str) -> Memory:
        """A remembered memory with its current status: `processing` (in the inbox only),
        `recallable` (its passages are searched), `ingested` (an ingest run has taken it over) or
        `expired` (recall no longer returns it; it is purged by `forget(expired=True)` or sleep mode)."""
        return self.live.memory(memory_id)

    # -- recall -------------------------------------------------------------------------

    def recall(self, query: str | None = None, context: list[str] | None = None, *, k: int | None = None,
               limit: int | None = None, min_similarity: float | None = None, mode: Mode = "eager",
               as_of: str | None = None, since: str | None = None, until: str | None = None,
               project: str | None = None, session: str | None = None) -> RecallResult:
        """What memory holds about the query and/or the context entities (see RecallEngine):
        notes, global memories, and the memories of `project` and `session` when given. `limit`
        (or its older name `k`; default 10) is how many items; `min_similarity` (-1..1) drops the
        passages whose cosine similarity to the query is below it. `since`/`until`: see
        `check_time_bounds`."""
        check_time_bounds(since, until)
        return self.engine.recall(query, context, k=recall_limit(k, limit), mode=mode, as_of=as_of, since=since,
                                  until=until_bound(until), scopes=visible_scopes(project, session),
                                  min_similarity=min_similarity)

    def check_ingested(self) -> None:
        """NotIngested ("run `mnemo ingest`") when the namespace holds nothing yet: no ingest has run
        and nothing was remembered. The surfaces ask it before a recall, which would answer nothing."""
        check_ingested(self.files.root, self.namespace, self._passages)

    def _passages(self) -> int:
        """How many passages the namespace holds (0 with no vectors folder, which counting would make)."""
        return self.vectors.count("chunks") if self.files.vectors_path.is_dir() else 0

    def memories(self, scope: str | None = None) -> list[Memory]:
        """The memories in the inbox (of one scope when given; titled and untitled), oldest first,
        with their expiry and current status (see `memory`)."""
        return self.live.listed(scope)

    # -- titled memories (`mnemo.memories.titled`) and rooms (a room is a scope) ------------------

    def save(self, title: str, text: str, scope: str = "global", *, expires_at: str | dt.datetime | None = None,
             ttl: float | None = None) -> Memory:
        """Save a memory under a title, unique (by its slug) within the scope: a new memory, or the
        text of the existing one replaced (the old text kept in its `history`). Recallable at once."""
        return self.titled.save(title, text, scope, expires_at, ttl)

    def read(self, title: str, scope: str = "global") -> Memory:
        """The memory saved under this title in this scope (`no memory titled ...` when none or expired)."""
        return self.titled.read(title, scope)

    def exists(self, title: str, scope: str = "global") -> bool:
        """Whether a memory is saved under this title in this scope (and has not expired)."""
        return self.titled.find(title, scope) is not None

    def append(self, title: str, text: str, scope: str = "global") -> Memory:
        """Add text to the end of the memory saved under this title (which must exist)."""
        return self.titled.append(title, text, scope)

    def get_memory(self, memory_id: str, room: str | None = None) -> Memory:
        """A memory by id with its status (`memory`); with `room` (a scope), only a memory of that room."""
        return self.live.in_room(memory_id, room)

    def get_all(self, room: str) -> list[Memory]:
        """Every memory of a room (a scope): `memories(room)`."""
        return self.memories(check_scope(room))

    def clear(self, room: str) -> ForgetReport:
        """Forget every memory of a room (a scope): `forget(scope=room)`."""
        return self.forget(scope=check_scope(room))

    # -- forget -------------------------------------------------------------------------

    def forget(self, memory: str | None = None, entity: str | None = None, *, properties: list[str] | None = None,
               relations: list[str] | None = None, query: str | None = None, confirm: bool = False,
               expired: bool = False, scope: str | None = None, title: str | None = None) -> ForgetReport:
        """Forget one memory, an entity (or only some of its properties/relations), what a query
        finds, every expired memory (`expired=True`), the memory saved under `title` (in `scope`,
        global by default) or every memory of a scope (`scope=...` alone).
        A query is a dry run unless `confirm=True`; the others act at once. A forget that was cut
        off is finished first; when it is this same forget, its report is the answer."""
        clearing = scope is not None and title is None
        if sum(x is not None for x in (memory, entity, query, title)) + expired + clearing != 1:
            raise MnemoError("forget needs exactly one of: a memory id, an entity reference, a query, expired, "
                             "a title, or a scope")
        request = _forget_request(memory, entity, properties, relations)
        finished = self.finish_forget()
        if finished is not None and request and finished.request == request:
            return finished
        if expired:
            return self.live.forget_expired()
        if title is not None:
            return self.live.forget_title(title, scope or "global")
        if scope is not None:
            return self.live.forget_scope(scope)
        if memory is not None:
            return self.live.forget_memory(memory, request)
        if entity is not None:
            report = self._plan_entity(entity, properties, relations)
        else:
            report = self._plan_query(query or "")
            if not confirm:
                report.dry_run = True
                return report
        report.request = request
        apply_forget(self.forget_stores(), report)
        return report

    def forget_stores(self) -> ForgetStores:
        return ForgetStores(self.config, self.files, self.vectors, self.graph, self.embedder)

    def finish_forget(self) -> ForgetReport | None:
        """Finish a forget that was cut off (its journal is left); its report, or None when there was none."""
        return resume_forget(self.forget_stores())

    def _plan_entity(self, ref: str, properties: list[str] | None, relations: list[str] | None) -> ForgetReport:
        entity = parse_ref(ref).entity_id
        pages = entity_pages(self.graph, entity)
        if pages is None and entity in Tombstones.load(self.files.root).entities:
            pages = []  # forgotten before: forgetting it again checks every store once more
        if pages is None:
            raise MnemoError(f"no entity {ref!r} in namespace {self.namespace!r}: nothing was forgotten")
        if properties or relations:
            return ForgetReport(properties={(entity, p) for p in properties or []},
                                relations={(entity, r) for r in relations or []})
        return ForgetReport(entities={entity}, docs=set(pages), items=[{"entity": ref}])

    def _plan_query(self, query: str) -> ForgetReport:
        result = self.engine.recall(query, k=50, mode="deliberate")
        chosen = [i for i in result.items if i.kind == "chunk" and "lexical" in i.reasons]
        return ForgetReport(
            chunks={i.id for i in chosen}, items=[{"id": i.id, "path": i.path, "text": i.text} for i in chosen]
        )

    # -- entities -----------------------------------------------------------------------

    def hidden(self, project: str | None = None, session: str | None = None) -> Hidden:
        """What a caller of `project` and `session` may not see: the documents of the memories of
        other scopes and of expired memories, and the entities that come only from them."""
        docs = self.engine.inbox.hidden_docs(visible_scopes(project, session))
        if not docs:
            return Hidden()
        view = current_view(self.graph, ENTITY_WAIT, self.files.session)
        return Hidden(docs, view.memory_only if view else {})

    def get_entity(
        self, ref: str, props: bool = False, content: bool = False, relations: bool = False, *,
        project: str | None = None, session: str | None = None,
    ) -> dict[str, Any]:
        """An entity by reference: name, kind, aliases; optionally properties with `since`
        and history, its note's content, and its relations in both directions. What comes only
        from memories of other scopes than global, `project` and `session` is left out."""
        entity = parse_ref(ref).entity_id
        hidden = self.hidden(project, session)
        rows = []
        if not hidden.entity(entity) and self.graph.path.exists():
            with self.graph.reading(wait_seconds=ENTITY_WAIT) as graph:
                rows = graph.entity_card(entity)
        if not rows:
            raise MnemoError(f"no entity {ref!r} in namespace {self.namespace!r}")
        row = rows[0]
        record_lookup(self.files.root, row["id"])
        out: dict[str, Any] = {
            "ref": ref,
            "id": row["id"],
            "kind": row["kind"],
            "name": row["name"],
            "aliases": self._aliases(entity, row["aliases"], hidden),
        }
        if props:
            out["properties"] = self._properties(entity, json.loads(row["properties"] or "{}"), hidden)
        docs = {d.id: d for d in self.files.read_documents()}
        note = docs.get(row["doc_id"]) if row["doc_id"] and not hidden.doc(row["doc_id"]) else None
        if note is not None:  # when the note was written, and from what (`mnemo.note_dates`)
            out["written"] = {"date": note.created, "date_source": note.date_source or "unknown"}
        if content:
            out["content"] = note.body if note is not None else ""
        if relations:
            out["relations"] = self._relations(entity, hidden)
        return out

    def _properties(self, entity: str, current: dict[str, Any], hidden: Hidden) -> dict[str, dict[str, Any]]:
        """The entity's properties with their history, from the pages the caller sees (a property
        only hidden pages set is left out)."""
        with self.graph.reading(wait_seconds=ENTITY_WAIT) as graph:
            pages = graph.entity_pages(entity)
        shown = page_observations([p for p in pages if not hidden.doc(p["id"])], self.ontology)
        unseen = {k for _, props in page_observations([p for p in pages if hidden.doc(p["id"])], self.ontology)
                  for k in props} - {k for _, props in shown for k in props}
        return property_history({k: v for k, v in current.items() if k not in unseen}, shown)

    def _aliases(self, entity: str, aliases: list[str], hidden: Hidden) -> list[str]:
        """The entity's aliases but those only hidden documents gave it."""
        if not hidden.docs:
            return aliases
        with self.graph.reading(wait_seconds=ENTITY_WAIT) as graph:
            rows = graph.entity_aliases(entity)
        seen = {r["name"] for r in rows if not hidden.doc(r["doc"])}
        unseen = {r["name"] for r in rows if hidden.doc(r["doc"])} - seen
        return [a for a in aliases if a not in unseen]

    def _relations(self, entity: str, hidden: Hidden) -> list[dict[str, Any]]:
        with self.graph.reading(wait_seconds=ENTITY_WAIT) as graph:
            rows = graph.entity_relations(entity)
        shown = [r for r in rows if not (hidden.doc(r["doc_id"]) or hidden.entity(r["src"]) or hidden.entity(r["dst"]))]
        return [{**{k: v for k, v in r.items() if k != "doc_id"}, "type": r["type"].lower(),
                 "direction": "out" if r["src"] == entity else "in", "props": json.loads(r["props"] or "{}")}
                for r in shown]

    # defined last: inside the class body, `list` names this method from here on
    def list(self, scope: str | None = None) -> builtins.list[Memory]:
        """The memories of a scope (all scopes when None), titled and untitled: `memories`."""
        return self.memories(scope)
