"""Forgetting: record a tombstone, then remove the forgotten things from every store at once.

The tombstone is written first, so recall stops returning what was forgotten even before
the stores are cleaned, and a later ingest of an unchanged source never brings it back.
Then the chunk and entity rows leave LanceDB (and with them the full-text index), the
nodes and edges leave Kùzu (parameterized queries only), and the Parquet files between
ingest steps are filtered the same way.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from mnemo.pipeline import entity_rows
from mnemo.stores.embedders import Embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore, id_filter, sql_quote
from mnemo.tombstones import Tombstones

GRAPH_WAIT = 10.0


@dataclass
class ForgetReport(Tombstones):
    """What a forget removed (or, for a dry run, would remove), and the items it showed."""

    items: list[dict[str, Any]] = field(default_factory=list)
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {**self.stored(), "items": self.items, "dry_run": self.dry_run}


def page_docs(graph: GraphStore, entity: str) -> list[str]:
    """The notes whose subject is the entity (their content is what only it contributed)."""
    if not graph.path.exists():
        return []
    rows = graph.query("MATCH (n:Note)-[:PAGE_OF]->(e:Entity) WHERE e.id = $id AND n.present RETURN n.id AS id",
                       {"id": entity}, wait_seconds=GRAPH_WAIT)
    return [r["id"] for r in rows]


def apply_forget(files: NamespaceFiles, vectors: VectorStore, graph: GraphStore, embedder: Embedder, report: ForgetReport) -> None:
    """Persist the tombstones, then clean LanceDB, Kùzu and the Parquet files."""
    delta: Tombstones = report
    stored = Tombstones.load(files.root)
    stored.merge(delta)
    stored.save(files.root)
    _clean_vectors(vectors, delta)
    if graph.path.exists():
        _clean_graph(graph, delta)
    files.write_chunks(stored.filter_chunks(files.read_chunks()))
    facts = stored.filter_facts(files.read_facts())
    files.write_facts(facts)
    changed = {e for e, _ in delta.properties}
    rows = [r for r in entity_rows(facts) if r["id"] in changed]
    if rows and vectors.table("entities") is not None:
        table = vectors.table("entities")
        table.delete(id_filter([r["id"] for r in rows]))
        vectors.sync("entities", entity_rows(facts), embedder)


def _clean_vectors(vectors: VectorStore, delta: Tombstones) -> None:
    chunks = vectors.table("chunks")
    if chunks is not None:
        if delta.chunks:
            chunks.delete(id_filter(sorted(delta.chunks)))
        if delta.docs:
            chunks.delete("doc_id IN (" + ", ".join(sql_quote(d) for d in sorted(delta.docs)) + ")")
    entities = vectors.table("entities")
    if entities is not None and delta.entities:
        entities.delete(id_filter(sorted(delta.entities)))


def _clean_graph(graph: GraphStore, delta: Tombstones) -> None:
    with graph.connect(wait_seconds=GRAPH_WAIT) as conn:
        docs, chunks, entities = sorted(delta.docs), sorted(delta.chunks), sorted(delta.entities)
        conn.execute("MATCH (c:Chunk) WHERE c.id IN $ids OR c.doc_id IN $docs DETACH DELETE c", {"ids": chunks, "docs": docs})
        conn.execute("MATCH (n:Note) WHERE n.id IN $docs DETACH DELETE n", {"docs": docs})
        conn.execute("MATCH (a:Alias) WHERE a.entity_id IN $ids OR a.doc_id IN $docs DETACH DELETE a", {"ids": entities, "docs": docs})
        conn.execute("MATCH (e:Entity) WHERE e.id IN $ids DETACH DELETE e", {"ids": entities})
        for entity, prop in sorted(delta.properties):
            result = conn.execute("MATCH (e:Entity) WHERE e.id = $id RETURN e.properties", {"id": entity})
            if result.has_next():
                properties = json.loads(result.get_next()[0] or "{}")
                properties.pop(prop, None)
                conn.execute("MATCH (e:Entity) WHERE e.id = $id SET e.properties = $p, e.h = ''",
                             {"id": entity, "p": json.dumps(properties, sort_keys=True, ensure_ascii=False)})
        for entity, relation in sorted(delta.relations):
            for pattern in ("(a:Entity)-[r]->(b:Entity)", "(b:Entity)-[r]->(a:Entity)"):
                conn.execute(
                    f"MATCH {pattern} WHERE a.id = $id AND (lower(label(r)) = $rel OR lower(r.role) = $rel) DELETE r",
                    {"id": entity, "rel": relation.lower()},
                )
