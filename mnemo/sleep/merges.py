"""The merge log and the canonical graph: extraction facts, merges applied, sleep overlays added.

The ingest job reconciles Kùzu with exactly the facts it is given. Sleep mode never edits the
graph behind its back: a merge is an event in an append-only log, and `canonical_facts`
rewrites the extraction facts through the log's active merges (the merged entity's names
become aliases of the canonical one, its relations, mentions and provenance move over) and
adds the overlays the other sleep steps wrote. The ingest's `entity_graph` applies the same
function, so a re-ingest keeps every merge, and `unmerge` is an event that removes one:
re-applying the facts then restores the graph exactly as it was.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from mnemo.documents import content_hash, normalize_name
from mnemo.errors import MnemoError
from mnemo.extract.llm_facts import merge_facts
from mnemo.facts import ColumnRows, GraphFacts, edge, row_hash
from mnemo.ingest.pipeline import LLM_FACTS, graph_facts
from mnemo.sleep.store import Overlay, SleepFiles, append_jsonl, read_jsonl
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import ApplyStats, GraphStore, Known
from mnemo.stores.graph_schema import NODE_SCHEMAS, STRUCTURAL_EDGES


class MergeError(MnemoError):
    """A merge or unmerge that cannot be done (unknown id, incompatible types...)."""


@dataclass(frozen=True)
class Merge:
    merge_id: str
    canonical: str
    merged: str
    score: float
    reasons: tuple[str, ...]
    decided_by: str
    at: str

    def to_dict(self) -> dict[str, Any]:
        return {"op": "merge", "merge_id": self.merge_id, "canonical": self.canonical, "merged": self.merged,
                "score": self.score, "reasons": list(self.reasons), "decided_by": self.decided_by, "at": self.at}


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def merge_id(canonical: str, merged: str) -> str:
    return "merge_" + content_hash(canonical, merged)[:16]


@dataclass
class MergeLog:
    """Append-only merge and unmerge events of one namespace."""

    files: SleepFiles
    _events: list[dict[str, Any]] | None = field(default=None, repr=False)

    def events(self) -> list[dict[str, Any]]:
        if self._events is None:
            self._events = read_jsonl(self.files.merge_log)
        return self._events

    def active(self) -> list[Merge]:
        """Merges in log order that no later event undid."""
        live: dict[str, Merge] = {}
        for event in self.events():
            if event.get("op") == "merge":
                fields = {k: event[k] for k in ("merge_id", "canonical", "merged", "score", "decided_by", "at")}
                live[event["merge_id"]] = Merge(**fields, reasons=tuple(event.get("reasons", ())))
            elif event.get("op") == "unmerge":
                live.pop(event["merge_id"], None)
        return list(live.values())

    def kept_apart(self) -> set[frozenset[str]]:
        """Pairs a person separated with `mnemo unmerge`: never merged automatically again."""
        merges = {e["merge_id"]: e for e in self.events() if e.get("op") == "merge"}
        return {frozenset((merges[e["merge_id"]]["canonical"], merges[e["merge_id"]]["merged"]))
                for e in self.events() if e.get("op") == "unmerge" and e["merge_id"] in merges}

    def append(self, records: list[dict[str, Any]]) -> None:
        append_jsonl(self.files.merge_log, records)
        self._events = None

    def record_merges(self, merges: list[Merge]) -> None:
        self.append([m.to_dict() for m in merges])

    def unmerge(self, target: str, reason: str = "") -> list[Merge]:
        """Undo the active merge with this id, or every active merge into/of this entity id."""
        hits = [m for m in self.active() if target in (m.merge_id, m.merged, m.canonical)]
        if not hits:
            raise MergeError(f"no active merge matches {target!r} (see `mnemo merges`)")
        self.append([{"op": "unmerge", "merge_id": m.merge_id, "reason": reason, "at": utc_now()} for m in hits])
        return hits


def resolve_map(merges: list[Merge], entities: dict[str, Any]) -> dict[str, str]:
    """merged id -> final canonical id, following chains; merges whose ends vanished are skipped."""
    parent = {m.merged: m.canonical for m in merges if m.merged != m.canonical}
    resolved = {}
    for merged in parent:
        seen, current = {merged}, parent[merged]
        while current in parent and current not in seen:
            seen.add(current)
            current = parent[current]
        if merged in entities and current in entities and current != merged:
            resolved[merged] = current
    return resolved


def apply_merges(facts: GraphFacts, merges: list[Merge]) -> dict[str, str]:
    """Rewrite `facts` in place through the merges; returns the merged -> canonical map used."""
    entities = facts.nodes["Entity"]
    mapping = resolve_map(merges, entities)
    if not mapping:
        return mapping
    for merged, canonical in sorted(mapping.items()):
        _absorb(facts, entities.pop(merged), canonical)
    for alias in facts.nodes["Alias"].values():
        if alias["entity_id"] in mapping:
            alias["entity_id"] = mapping[alias["entity_id"]]
            alias["h"] = row_hash(alias)
    for (_table, src, dst), rows in facts.edges.items():
        if "Entity" not in (src, dst):
            continue
        if isinstance(rows, ColumnRows):  # none joins Entity to Entity: no self-loop to drop
            rows.remap(mapping if src == "Entity" else {}, mapping if dst == "Entity" else {})
            continue
        for eid, row in list(rows.items()):
            new_src = mapping.get(row["src"], row["src"]) if src == "Entity" else row["src"]
            new_dst = mapping.get(row["dst"], row["dst"]) if dst == "Entity" else row["dst"]
            if (new_src, new_dst) == (row["src"], row["dst"]):
                continue
            if src == dst == "Entity" and new_src == new_dst:
                del rows[eid]
                continue
            row.update(src=new_src, dst=new_dst)
            row["h"] = row_hash(row)
    return mapping


def _absorb(facts: GraphFacts, merged: dict[str, Any], canonical_id: str) -> None:
    """The canonical entity takes the merged one's names as aliases and its missing properties."""
    canonical = facts.nodes["Entity"][canonical_id]
    names = {merged["name"], *(merged["aliases"] or [])} - {canonical["name"]}
    canonical["aliases"] = sorted(set(canonical["aliases"] or []) | names)
    props = json.loads(canonical["properties"] or "{}")
    for key, value in json.loads(merged["properties"] or "{}").items():
        props.setdefault(key, value)
    canonical["properties"] = json.dumps(props, sort_keys=True, ensure_ascii=False)
    canonical["h"] = row_hash(canonical)
    for name in sorted(names):
        alias_id = "alias_" + content_hash(canonical_id, name)
        if alias_id in facts.nodes["Alias"]:
            continue
        doc_id = merged["doc_id"] or ""
        facts.add_node("Alias", {"id": alias_id, "name": name, "norm": normalize_name(name),
                                 "entity_id": canonical_id, "doc_id": doc_id})
        facts.add_edge("ALIAS_OF", "Alias", "Entity", edge("ALIAS_OF", alias_id, canonical_id, doc_id, method="merge"))


def merged_facts(files: NamespaceFiles, shared: bool = False) -> GraphFacts:
    """The extraction facts (structural and LLM) with the active merges applied. With `shared`,
    rows no merge rewrites may be the ones other readers hold (see `graph_facts`): read them only."""
    merges = MergeLog(SleepFiles(files.root, files.session)).active()
    facts = graph_facts(files, shared=shared and not merges)  # merges rewrite rows in place
    apply_merges(facts, merges)
    return facts


def canonical_facts(files: NamespaceFiles, shared: bool = False) -> GraphFacts:
    """The graph a namespace should have: extraction facts, active merges, sleep overlays. With
    `shared`, for a reader that never changes a row (a graph write): rows are copied only when
    merges rewrite them."""
    facts = merged_facts(files, shared)
    sleep = SleepFiles(files.root, files.session)
    for step in SleepFiles.STEPS:
        sleep.read_overlay(step).add_to(facts)
    return facts


def canonical_entities(files: NamespaceFiles) -> GraphFacts:
    """The entity rows of `canonical_facts` (and the aliases merges give them), without copying the
    rest of the facts: what the entity vectors are made of."""
    facts = graph_facts(files, nodes=("Entity", "Alias"))
    sleep = SleepFiles(files.root, files.session)
    apply_merges(facts, MergeLog(sleep).active())
    for step in SleepFiles.STEPS:
        facts.nodes["Entity"].update(sleep.read_overlay(step).nodes.get("Entity", {}))
    return facts


def sync_graph(files: NamespaceFiles, graph: GraphStore, run_id: str = "") -> ApplyStats:
    """Make the graph equal to the canonical facts (only differences are written)."""
    return graph.apply(canonical_facts(files), run_id=run_id)


STEP_TABLES = {  # the graph tables each step's overlay writes; abstractions add concept entities
    "communities": frozenset({"Community", "IN_COMMUNITY", "SUBCOMMUNITY_OF", "CITES"}),
    "abstractions": frozenset({"Entity", "INSTANCE_OF"}),
    "summaries": frozenset({"Summary", "SUMMARIZES", "CITES", "SUMMARY_MENTIONS"}),
    "salience": frozenset({"Salience", "SALIENCE_OF", "PROMOTED_TO"}),
    "profile": frozenset({"SelfProfile", "PORTRAYS", "CITES"}),
}
SLEEP_TABLES = frozenset().union(*STEP_TABLES.values())
# edge tables no sleep step reads and no merge rewrites (neither end is an entity)
UNREAD_BY_SLEEP = frozenset(
    {
        ("LINKS_TO", "Note", "Note"),
        ("NEXT", "Chunk", "Chunk"),
        ("NEXT", "Episode", "Episode"),
        ("NEXT", "Day", "Day"),
        ("MENTIONS_DAY", "Chunk", "Day"),
        ("HAS_EPISODE", "Note", "Episode"),
    }
)


# the columns the sleep steps read; no extraction edge and none of these node tables is a sleep table,
# so rows read with only these are never written to the graph (a sync of every table reads every column)
SLEEP_EDGE_COLUMNS = ("id", "src", "dst", "role", "surface", "props", "h")  # props: the weight of REFERS_TO
# (a note's title and properties: what its page's entity is called, `FactsView.shown_name`)
SLEEP_NODE_COLUMNS = {"Note": ("id", "kind", "title", "properties", "h"),
                      "Chunk": ("id", "position", "text", "timestamp", "h"), "Day": ("id", "h"), "Episode": ("id", "h")}


# edge tables the sleep steps read only for their ends (the largest two, those that place notes
# and turns on days and pages on entities, and those only dedup's degree count and merges touch):
# kept as columns (`ColumnRows`); none joins Entity to Entity (a merge may drop such a row)
SLEEP_COLUMNAR = frozenset(
    {
        ("MENTIONS", "Chunk", "Entity"),
        ("HAS_CHUNK", "Note", "Chunk"),
        ("SAID_BY", "Chunk", "Entity"),
        ("SPOKE_IN", "Entity", "Episode"),
        ("ALIAS_OF", "Alias", "Entity"),
        ("ON_DAY", "Note", "Day"),
        ("ON_DAY", "Episode", "Day"),
        ("IN_EPISODE", "Chunk", "Episode"),
        ("PAGE_OF", "Note", "Entity"),
    }
)


def sleep_facts(files: NamespaceFiles) -> GraphFacts:
    """The extraction facts the sleep steps read: `graph_facts` without the edge tables in
    `UNREAD_BY_SLEEP`, with only the columns above, and those in `SLEEP_COLUMNAR` as columns; only
    a sync of every table needs the rest."""
    return merge_facts(
        files.read_facts(
            without=UNREAD_BY_SLEEP,
            edge_columns=SLEEP_EDGE_COLUMNS,
            node_columns=SLEEP_NODE_COLUMNS,
            columnar=SLEEP_COLUMNAR,
        ),
        files.read_facts(LLM_FACTS, edge_columns=SLEEP_EDGE_COLUMNS, node_columns=SLEEP_NODE_COLUMNS),
    )


def merged_sleep_facts(files: NamespaceFiles) -> GraphFacts:
    """`sleep_facts` with the active merges applied: what the sleep steps read."""
    facts = sleep_facts(files)
    apply_merges(facts, MergeLog(SleepFiles(files.root, files.session)).active())
    return facts


def sync_sleep_tables(
    files: NamespaceFiles,
    graph: GraphStore,
    facts: GraphFacts | None = None,
    run_id: str = "",
    sleep: SleepFiles | None = None,
    reuse: bool = True,
) -> ApplyStats:
    """Sync after a sleep run, given the merged facts it used (`sleep_facts` or `merged_facts`; read
    when needed if not given): the overlays are added to them. While the merge log is as it was at
    the last sync, only the tables of overlays that changed since they were last synced are compared
    (the ingest keeps every other table canonical, overlays included); otherwise, or with `reuse`
    off, the whole graph is, from every fact."""
    sleep = sleep or SleepFiles(files.root, files.session)
    overlays = {step: sleep.read_overlay(step) for step in SleepFiles.STEPS}
    log = content_hash(json.dumps(MergeLog(sleep).events(), sort_keys=True))
    state = sleep.read_state("sync")
    digests = {step: sleep.digest(overlay, step, state) for step, overlay in overlays.items()}
    tables: frozenset[str] | None = None
    if reuse and state.get("merges") == log:
        tables = frozenset(t for step, d in digests.items() if not _synced(state, step, d) for t in STEP_TABLES[step])
    if tables is None:  # every table is compared: every fact is needed, also those the steps do not read
        facts = merged_facts(files)
    if tables == frozenset():
        return _record_sync(sleep, state, log, digests, ApplyStats())
    facts = sleep_facts(files) if facts is None else facts
    changed = {s: d for s, d in digests.items() if not _synced(state, s, d)}
    known, covered = _overlay_changes(sleep, state, changed, facts) if tables else ({}, frozenset())
    for overlay in overlays.values():
        overlay.add_to(facts, tables, skip=covered)  # edges of other tables are not compared
    return _record_sync(sleep, state, log, digests, graph.apply(facts, run_id=run_id, tables=tables, known=known))


def _overlay_changes(
    sleep: SleepFiles, state: dict[str, Any], changed: dict[str, str], facts: GraphFacts
) -> tuple[Known, frozenset[Any]]:
    """For each of the `changed` steps (-> their new overlay's digest) whose overlay at the run's
    start is what the last sync wrote, with no other write of it since but this run's, the graph
    holds that overlay's rows (less edges whose ends the facts lack: the ingest applies the same
    overlays through `canonical_facts`, which leaves those out). For the tables only such a step
    writes, only the rows that differ between the two overlays are compared: what the graph holds
    of them goes into the returned `known`, their new rows into `facts` (edges only where both ends
    will be in the graph). Returns `known` and the node tables and edge keys so covered, which
    `GraphStore.apply` then compares without reading them back and the caller leaves out of the
    overlays it adds in full. `facts` are the merged facts, overlays not yet added."""
    known: Known = {}
    pending: dict[Any, dict[str, dict[str, Any]]] = {}
    extracted = {table: rows.keys() for table, rows in facts.nodes.items()}

    def in_graph(overlays: list[Overlay | None]) -> Callable[[str, str], bool]:
        return lambda table, i: i in extracted.get(table, ()) or any(
            o is not None and i in o.nodes.get(table, {}) for o in overlays
        )

    was_held = in_graph([sleep.at_start(step) for step in SleepFiles.STEPS])
    held = in_graph([sleep.read_overlay(step) for step in SleepFiles.STEPS])
    for step, digest in changed.items():
        before, after = sleep.at_start(step), sleep.read_overlay(step)
        if (
            step == "abstractions"
            or before is None
            or not _wrote_last(state, step, sleep.digest(before, step, state), digest)
        ):
            continue  # abstractions share the Entity table with the extraction
        owned = STEP_TABLES[step]
        for table in owned & NODE_SCHEMAS.keys():
            old, new = before.nodes.get(table, {}), after.nodes.get(table, {})
            known[table] = {i: old[i]["h"] for i in _differing(old, new) if i in old}
            facts.nodes[table] = {i: new[i] for i in _differing(new, old)}
        for table in owned - NODE_SCHEMAS.keys():
            for a, b in STRUCTURAL_EDGES[table]:
                if a in owned or all(table not in t for s, t in STEP_TABLES.items() if s != step):
                    old, new = before.edges.get((table, a, b), {}), after.edges.get((table, a, b), {})
                    known[(table, a, b)] = {i: old[i]["h"] for i in _differing(old, new)
                                            if i in old and was_held(a, old[i]["src"]) and was_held(b, old[i]["dst"])}
                    pending[(table, a, b)] = {i: new[i] for i in _differing(new, old)}
    for (table, a, b), rows in pending.items():
        facts.edges[(table, a, b)] = {i: r for i, r in rows.items() if held(a, r["src"]) and held(b, r["dst"])}
    return known, frozenset(known)


def _differing(rows: dict[str, dict[str, Any]], other: dict[str, dict[str, Any]]) -> list[str]:
    """Ids of `rows` that `other` lacks or holds with another hash."""
    return [i for i, row in rows.items() if (o := other.get(i)) is not row and (o is None or o["h"] != row["h"])]


def _record_sync(
    sleep: SleepFiles, state: dict[str, Any], log: str, digests: dict[str, str], stats: ApplyStats
) -> ApplyStats:
    fresh = {"merges": log, "steps": digests, "files": sleep.files_read()}  # the files those digests are of
    if fresh != state:
        sleep.write_state("sync", fresh)
    return stats


def _wrote_last(state: dict[str, Any], step: str, synced: str, written: str) -> bool:
    """The last sync wrote the overlay with digest `synced`, and the one write of the step's overlay
    since is the one with digest `written` (this run's)."""
    return state.get("steps", {}).get(step) == synced and set(state.get("pending", {}).get(step, [])) <= {
        synced,
        written,
    }


def _synced(state: dict[str, Any], step: str, digest: str) -> bool:
    """The graph holds these overlay rows: the last sync wrote them, and no other write of the step's
    overlay (a run that stopped before its sync) happened since."""
    return state.get("steps", {}).get(step) == digest and set(state.get("pending", {}).get(step, [])) <= {digest}
