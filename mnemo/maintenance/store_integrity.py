"""Integrity checks over a namespace's stores (used by asset checks and tests)."""

from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore

DANGLING_QUERIES = {
    "chunks without a note": "MATCH (c:Chunk) WHERE NOT EXISTS { MATCH (:Note)-[:HAS_CHUNK]->(c) } RETURN count(c)",
    "aliases without an entity": (
        "MATCH (a:Alias) WHERE NOT EXISTS { MATCH (a)-[:ALIAS_OF]->(:Entity) } RETURN count(a)"
    ),
    "missing notes nobody links to": (
        "MATCH (n:Note) WHERE n.present = false AND NOT EXISTS { MATCH (:Note)-[:LINKS_TO]->(n) } RETURN count(n)"
    ),
    "entities with no provenance": (
        "MATCH (e:Entity) WHERE NOT EXISTS { MATCH ()-[]->(e) } AND NOT EXISTS { MATCH (e)-[]->() } RETURN count(e)"
    ),
}


def relation_violations(store: GraphStore) -> list[str]:
    """Relations whose endpoint types the ontology does not allow, as readable lines."""
    relations = list(store.ontology.relation_types.values())
    results = store.queries([
        f"MATCH (a:Entity)-[r:{relation.table}]->(b:Entity) RETURN a.kind AS a, b.kind AS b, count(*) AS n"
        for relation in relations
    ])
    problems = []
    for relation, rows in zip(relations, results):
        for row in rows:
            reason = store.ontology.check(relation.name, row["a"], row["b"])
            if reason:
                problems.append(f"{row['n']} x {reason}")
    return problems


def dangling(store: GraphStore) -> dict[str, int]:
    """Counts of graph elements that lost what should hold them."""
    results = store.queries(list(DANGLING_QUERIES.values()))
    return {name: int(next(iter(rows[0].values()))) for name, rows in zip(DANGLING_QUERIES, results)}


def vector_dimensions(store: VectorStore, expected: int) -> dict[str, int | None]:
    """Tables whose vector width differs from the embedder's (empty when all match)."""
    found = {name: store.dimension(name) for name in ("chunks", "entities")}
    return {name: dim for name, dim in found.items() if dim is not None and dim != expected}
