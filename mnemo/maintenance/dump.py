"""A canonical dump of everything a namespace holds, for comparing two states of memory.

Two namespaces hold the same memory when their dumps are equal: graph nodes and edges
(sorted, without run ids), every vector table's ids and content hashes, the manifest,
the documents, chunks and problems. Crash, backup and export tests compare these.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_engine import DEFAULT_ENGINE
from mnemo.stores.vectors import VectorStore
from ontology import Ontology


def canonical_dump(data_dir: Path, namespace: str, ontology: Ontology, engine: str = DEFAULT_ENGINE) -> dict[str, Any]:
    """Every store of the namespace as sorted, JSON-able rows (its graph read with `engine`)."""
    files = NamespaceFiles(data_dir, namespace)
    graph = GraphStore(files.graph_path, ontology, engine=engine)
    vectors = VectorStore(files.vectors_path)
    return {
        "graph": {k: [list(r) for r in v] for k, v in graph.dump().items()} if graph.path.exists() else {},
        "vectors": {name: [list(r) for r in vectors.dump(name)] for name in vectors.table_names()},
        "manifest": sorted(
            (e.source, e.path, e.mtime_ns, e.size, e.file_hash, list(e.doc_ids)) for e in files.read_manifest()
        ),
        "documents": sorted((d.id, d.path, d.content_hash, d.title) for d in files.read_documents()),
        "chunks": sorted(c.id for c in files.read_chunks()),
        "problems": sorted((p["path"], p["reason"]) for p in files.read_problems()),
    }


def digest(dump: dict[str, Any]) -> str:
    """A short fingerprint of a dump (equal dumps, equal digests)."""
    return hashlib.sha256(json.dumps(dump, sort_keys=True, default=str).encode()).hexdigest()[:16]


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Which parts of two dumps differ (empty when they are equal), for readable failures."""
    out: list[str] = []
    for key in sorted(set(a) | set(b)):
        left, right = a.get(key), b.get(key)
        if isinstance(left, dict) and isinstance(right, dict):
            out.extend(f"{key}.{k}" for k in sorted(set(left) | set(right)) if left.get(k) != right.get(k))
        elif left != right:
            out.append(key)
    return out
