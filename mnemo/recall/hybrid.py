"""Plain hybrid search over passages: LanceDB's vector and full-text search fused by reciprocal
rank. The baseline the evaluations compare recall against."""

from dataclasses import asdict, dataclass

from mnemo.errors import InvalidQuery
from mnemo.stores.embedders import Embedder
from mnemo.stores.vectors import VectorStore


@dataclass(frozen=True)
class HybridHit:
    """A passage plain hybrid search found, with its fused score."""

    chunk_id: str
    path: str
    title: str
    heading: str
    text: str
    timestamp: str
    score: float


    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def recall_chunks(store: VectorStore, embedder: Embedder, query: str, k: int = 5) -> list[HybridHit]:
    """The k chunks that best match the query by meaning and by words together."""
    if not query.strip():
        raise InvalidQuery("the query is empty")
    if store.open("chunks") is None:
        return []
    rows = store.hybrid("chunks", embedder.encode_query([query])[0], query, k)
    return [
        HybridHit(
            r["id"], r["path"], r["title"], r["heading"], r["text"], r["timestamp"], float(r["_relevance_score"])
        )
        for r in rows
    ]
