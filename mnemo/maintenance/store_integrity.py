"""Integrity checks over a namespace's stores (used by asset checks and tests)."""

from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore


def relation_violations(store: GraphStore) -> list[str]:
    """Relations whose endpoint types the ontology does not allow, as readable lines."""
    relations = list(store.ontology.relation_types.values())
    with store.reading() as graph:
        results = [graph.relation_end_kinds(relation.table) for relation in relations]
    problems = []
    for relation, rows in zip(relations, results):
        for row in rows:
            reason = store.ontology.check(relation.name, row["a"], row["b"])
            if reason:
                problems.append(f"{row['n']} x {reason}")
    return problems


def dangling(store: GraphStore) -> dict[str, int]:
    """Counts of graph elements that lost what should hold them."""
    with store.reading() as graph:
        return graph.dangling()


def vector_dimensions(store: VectorStore, expected: int) -> dict[str, int | None]:
    """Tables whose vector width differs from the embedder's (empty when all match)."""
    found = {name: store.dimension(name) for name in ("chunks", "entities")}
    return {name: dim for name, dim in found.items() if dim is not None and dim != expected}
