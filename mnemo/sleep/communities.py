"""Communities of entities (Leiden, two levels) with ids stable across runs and extractive
summaries that cite their chunks; a community's summary is re-made only when its members
or their facts changed."""

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mnemo.documents import content_hash
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.store import Overlay
from mnemo.sleep.text import Sentence, sentences, summarize
from mnemo.sleep.view import COHESION_FLOOR, FactsView

if TYPE_CHECKING:
    import igraph as ig

SEED = 42
EXTRACTIVE = "extractive"
MIN_OVERLAP = 0.5
DIGESTS = 2  # the rule community rows are digested by (`_inputs`), kept in the communities state
SOURCE_CHUNKS = 20  # of each central member, in `entity_chunks` order: where summary sentences come from


@dataclass
class CommunityStats:
    communities: int
    levels: int
    modularity: float
    summarized: int
    reused: int
    concepts: int = 0
    instance_links: int = 0
    llm_failures: int = 0
    kept: int = 0  # summaries the model failed to re-make: the last run's stands, asked again next run
    flagged: int = 0  # sentences of written summaries naming an entity their sources do not
    cohesion: list[dict[str, Any]] = field(default_factory=list)  # per community: id, title, members, cohesion

    @property
    def below_floor(self) -> int:
        return sum(1 for c in self.cohesion if c["cohesion"] < COHESION_FLOOR)


def leiden(graph: "ig.Graph") -> tuple[list[list[int]], float]:
    """Groups of vertex indices (at least 2 members) and the partition's modularity."""
    if graph.vcount() == 0 or graph.ecount() == 0:
        return [], 0.0
    import leidenalg

    partition = leidenalg.find_partition(graph, leidenalg.ModularityVertexPartition, weights="weight", seed=SEED)
    groups = [sorted(g) for g in partition if len(g) >= 2]
    return groups, float(partition.modularity)


def match_ids(groups: list[frozenset[str]], previous: dict[str, list[str]], level: int) -> list[str]:
    """Reuse the id of the previous community with the largest member overlap (Jaccard >= 0.5)."""
    scored = []
    for i, members in enumerate(groups):
        for old_id, old in previous.items():
            jaccard = len(members & set(old)) / len(members | set(old))
            if jaccard >= MIN_OVERLAP:
                scored.append((-jaccard, old_id, i))
    ids: dict[int, str] = {}
    taken: set[str] = set()
    for _, old_id, i in sorted(scored):
        if i not in ids and old_id not in taken:
            ids[i] = old_id
            taken.add(old_id)
    return [ids.get(i) or f"community_{level}_" + content_hash(*sorted(g))[:12] for i, g in enumerate(groups)]


def detect(view: FactsView) -> tuple[list[frozenset[str]], list[list[int]], float]:
    """Level-0 communities of entities, level-1 groups of level-0 indices, and the modularity."""
    graph, ids = view.community_graph()
    groups, modularity = leiden(graph)
    level0 = [frozenset(ids[i] for i in g) for g in groups]
    owner = {ids[i]: n for n, g in enumerate(groups) for i in g}
    pairs: Counter[tuple[int, int]] = Counter()
    for e in graph.es:
        a, b = owner.get(ids[e.source]), owner.get(ids[e.target])
        if a is not None and b is not None and a != b:
            pairs[(min(a, b), max(a, b))] += e["weight"]
    import igraph

    meta = igraph.Graph(n=len(level0), edges=sorted(pairs))
    meta.es["weight"] = [pairs[p] for p in sorted(pairs)]
    upper, _ = leiden(meta)
    return level0, upper, modularity


def _legacy_digest(view: FactsView, members: frozenset[str], parts_of: dict[str, list[str]]) -> str:
    """The digest summaries were compared by before `_inputs` (every member's row and every chunk
    they rest on): read only for a run over rows written that way, so that an upgrade keeps them."""
    parts, chunks = [], view.chunks
    for eid in sorted(members):
        if eid not in parts_of:
            parts_of[eid] = [view.entities[eid]["h"]] + [chunks[c]["h"] for c in view.entity_chunks(eid) if c in chunks]
        parts.extend(parts_of[eid])
    return content_hash(*parts)


def _central(view: FactsView, members: frozenset[str]) -> list[str]:
    """The five members most connected inside the community (then with the most mentions and
    relations): whom a summary is about. The first names the community."""
    adjacency = view.adjacency()

    def inside(eid: str) -> float:
        return sum(w for other, w in adjacency.get(eid, {}).items() if other in members)
    return sorted(members, key=lambda e: (-round(inside(e), 6), -view.degree(e), e))[:5]


def cohesion(view: FactsView, members: frozenset[str], center: str) -> float:
    """The share of the members within two links of the one the community is named after, over
    links inside the community: how far the name says what the members are about."""
    adjacency = view.adjacency()
    near = {center}
    for _ in range(2):
        near |= {other for eid in near for other in adjacency.get(eid, {}) if other in members}
    return round(len(near) / len(members), 4) if members else 0.0


def _inputs(view: FactsView, members: frozenset[str], central: list[str]) -> str:
    """A digest of what `_summary` reads: the members' rows (their names, and a name shown in place
    of one), the central members and the chunks it takes sentences from. A member's chunk that no
    summary sentence can come from does not make the summary again."""
    entities, chunks = view.entities, view.chunks
    parts = [entities[e]["h"] for e in sorted(members)]
    parts += [f"{e}={shown}" for e in sorted(members) if (shown := view.shown_name(e)) != entities[e]["name"]]
    for eid in central:
        parts.append(eid)
        parts.extend(chunks[c]["h"] if c in chunks else c for c in view.entity_chunks(eid)[:SOURCE_CHUNKS])
    return content_hash("inputs", *parts)


def name_hits(names: list[str]) -> Callable[[str], int]:
    """A counter of how many of `names` occur in a (lower-case) text, as `sum(n in text for n in names)`
    gives, that tries only the names whose first three letters occur in the text."""
    by_start: dict[str, list[str]] = defaultdict(list)
    short: list[str] = []
    for name in names:
        (by_start[name[:3]] if len(name) >= 3 else short).append(name)

    def hits(text: str) -> int:
        starts = {text[i:i + 3] for i in range(len(text) - 2)} & by_start.keys()
        return sum(n in text for n in short) + sum(n in text for s in starts for n in by_start[s])
    return hits


def _summary(
    view: FactsView, members: frozenset[str], central: list[str], writer: SleepWriter | None = None,
    names: Collection[str] = (),
) -> tuple[str, list[str], list[str], str]:
    """(text, key entity ids, cited chunk ids, who wrote it): the `central` entities and their
    most on-topic sentences, written by the LLM when there is one, else extracted."""
    hits = name_hits([n for n in (view.shown_name(e).lower() for e in members) if n])
    pool: list[Sentence] = []
    for eid in central:
        for chunk_id in view.entity_chunks(eid)[:SOURCE_CHUNKS]:
            for s in sentences(view.chunks[chunk_id]["text"], chunk_id):
                pool.append(Sentence(s.text, chunk_id, float(hits(s.text.lower()))))
    titles = ", ".join(view.shown_name(e) for e in central)
    if writer is not None:
        written = writer.summary(titles, pool, names)
        if written is not None:
            return written[0], central, written[1], writer.model
    text, cited = summarize(pool, 3)
    return (f"{titles}. {text}".strip() if text else titles), central, cited, EXTRACTIVE


Detected = tuple[list[frozenset[str]], list[list[int]], float]


def detect_or_reuse(view: FactsView, state: dict[str, Any]) -> tuple[Detected, dict[str, Any]]:
    """Leiden's result, reused from the last run when the entity graph's digest is unchanged
    (same vertices, edges and weights give the same seeded partition), and the state to keep."""
    digest = view.graph_digest()
    if state.get("graph") == digest and "level0" in state:
        level0 = [frozenset(g) for g in state["level0"]]
        return (level0, state["upper"], float(state["modularity"])), state
    level0, upper, modularity = detect(view)
    return (level0, upper, modularity), {"graph": digest, "level0": [sorted(g) for g in level0], "upper": upper,
                                         "modularity": modularity}


def build_communities(
    view: FactsView, previous: Overlay, writer: SleepWriter | None = None, detected: Detected | None = None,
    legacy: bool = False,
) -> tuple[Overlay, CommunityStats]:
    """The Community overlay: nodes, IN_COMMUNITY / SUBCOMMUNITY_OF / CITES edges. A summary is
    re-made when what it is made from changed (`_inputs`), or when who would write it changed.
    `detected` is Leiden's result when the caller has it (see `detect_or_reuse`); `legacy`: the
    previous rows may carry digests of the older rule (`_legacy_digest`), also accepted."""
    level0, upper, modularity = detected or detect(view)
    level1 = [frozenset().union(*(level0[i] for i in group)) for group in upper]
    old_nodes = previous.nodes.get("Community", {})
    old = {lvl: {i: json.loads(r["members"]) for i, r in old_nodes.items() if r["level"] == lvl} for lvl in (0, 1)}
    ids0, ids1 = match_ids(level0, old[0], 0), match_ids(level1, old[1], 1)
    parent_of = {i: ids1[n] for n, group in enumerate(upper) for i in group}
    overlay = Overlay(previous)
    made = reused = kept = 0
    names = [row["name"] for row in view.entities.values()] if writer else []
    entries = [(0, g, cid, parent_of.get(i)) for i, (g, cid) in enumerate(zip(level0, ids0))]
    entries += [(1, g, cid, None) for g, cid in zip(level1, ids1)]
    parts_of: dict[str, list[str]] = {}
    links: dict[tuple[str, str, str], list[tuple[str, str]]] = defaultdict(list)  # edge key -> ends
    author = writer.model if writer else EXTRACTIVE
    shown: list[dict[str, Any]] = []
    for level, members, cid, parent in entries:
        central = _central(view, members)
        digest = _inputs(view, members, central)
        row = old_nodes.get(cid)
        if row and row["level"] == level and (
            row["digest"] == content_hash(digest, author)
            or legacy and row["digest"] == content_hash(_legacy_digest(view, members, parts_of), author)
        ):
            row, reused = {**row, "digest": content_hash(digest, author)}, reused + 1
        else:
            row, wrote = _remade(view, row if row and row["level"] == level else None, cid, level, members,
                                 central, digest, writer, names)
            made, kept = (made + 1, kept) if wrote else (made, kept + 1)
        row = {**row, "cohesion": cohesion(view, members, central[0]) if central else 0.0}
        shown.append({"id": cid, "level": level, "title": row["title"], "members": len(members),
                      "cohesion": row["cohesion"]})
        overlay.add_node("Community", row)
        _link(links, row, members, parent)
    for edge_key, ends in links.items():
        overlay.link_all(*edge_key, ends)
    levels = (1 if level0 else 0) + (1 if level1 else 0)
    return overlay, CommunityStats(len(entries), levels, round(modularity, 4), made, reused, kept=kept,
                                   cohesion=shown)


def _remade(
    view: FactsView, old: dict[str, Any] | None, cid: str, level: int, members: frozenset[str], central: list[str],
    digest: str, writer: SleepWriter | None, names: list[str],
) -> tuple[dict[str, Any], bool]:
    """The community's row made again, and whether it was; when the model was asked and failed, the
    last run's row stands with its old digest (so the next run asks again), only the members updated."""
    text, key, cited, wrote = _summary(view, members, central, writer, names)
    if writer is not None and wrote == EXTRACTIVE and old is not None:
        return {**old, "members": json.dumps(sorted(members)), "member_count": len(members)}, False
    return {"id": cid, "level": level, "title": view.shown_name(key[0]) if key else cid,
            "summary": text, "key_entities": key, "members": json.dumps(sorted(members)),
            "member_count": len(members), "sources": cited, "digest": content_hash(digest, wrote)}, True


def _link(links: dict[tuple[str, str, str], list[tuple[str, str]]], row: dict[str, Any], members: frozenset[str],
          parent: str | None) -> None:
    """The community's edges, added to `links` (linked in one pass per edge table at the end)."""
    cid = str(row["id"])
    if row["level"] == 0:
        links[("IN_COMMUNITY", "Entity", "Community")].extend((eid, cid) for eid in sorted(members))
    if parent:
        links[("SUBCOMMUNITY_OF", "Community", "Community")].append((cid, parent))
    links[("CITES", "Community", "Chunk")].extend((cid, chunk_id) for chunk_id in row["sources"])
