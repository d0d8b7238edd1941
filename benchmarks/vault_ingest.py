"""Time a full offline ingest of one vault, step by step (no Dagster overhead).

Usage: .venv/bin/python benchmarks/vault_ingest.py PATH [--embedder minilm|hashing]
Prints seconds per step, notes/s and chunks/s for the whole pipeline.
"""

import argparse
import tempfile
import time
from pathlib import Path

from mnemo.config import parse_config
from mnemo.pipeline import build_chunks, chunk_rows, entity_rows, extract_facts, scan_documents
from mnemo.stores.embedders import build_embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from ontology import load_ontology


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = parse_config(
            {"data_dir": tmp, "embedder": {"kind": args.embedder},
             "namespaces": {"bench": {"sources": [{"kind": "obsidian", "path": str(args.path.resolve())}]}}},
            Path(tmp) / "mnemo.yaml",
        )
        files = NamespaceFiles(config.data_dir, "bench")
        embedder = build_embedder(config.embedder)
        embedder.encode(["warm up"])
        ontology = load_ontology()
        timings: dict[str, float] = {}

        def timed(name: str, fn):  # noqa: ANN001, ANN202
            start = time.perf_counter()
            value = fn()
            timings[name] = time.perf_counter() - start
            return value

        scan = timed("documents", lambda: scan_documents(files, config.namespace("bench")))
        chunks, _ = timed("chunks", lambda: build_chunks(files, config.chunking.max_words))
        timed("chunk_vectors", lambda: VectorStore(files.vectors_path).sync("chunks", chunk_rows(chunks), embedder))
        facts = timed("extractions", lambda: extract_facts(files, ontology))
        timed("entity_graph", lambda: GraphStore(files.graph_path, ontology).apply(facts))
        timed("entity_vectors", lambda: VectorStore(files.vectors_path).sync("entities", entity_rows(facts), embedder))
        texts = [c.context_text for c in chunks]
        start = time.perf_counter()
        embedder.encode(texts)
        raw = time.perf_counter() - start
    total = sum(timings.values())
    for name, seconds in timings.items():
        print(f"{name:15s} {seconds:8.2f} s")
    print(f"{'total':15s} {total:8.2f} s")
    print(f"notes: {len(scan.documents)}  chunks: {len(chunks)}  embedder: {embedder.name}")
    print(f"throughput: {len(scan.documents) / total:.1f} notes/s, {len(chunks) / total:.1f} chunks/s")
    print(f"raw encode of the same chunks: {raw:.2f} s; pipeline/raw = {total / raw:.2f}")


if __name__ == "__main__":
    main()
