"""Sizes and times of backup/restore and export/import round trips of one ingested vault.

Usage: .venv/bin/python benchmarks/backup_export.py [--vault examples/vault] [--embedder hashing|minilm]
"""

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemo.config import parse_config  # noqa: E402
from mnemo.ingest.pipeline import build_chunks, chunk_rows, entity_rows, extract_facts, scan_documents  # noqa: E402
from mnemo.maintenance.backup import backup_namespace, restore_namespace  # noqa: E402
from mnemo.maintenance.dump import canonical_dump, differences  # noqa: E402
from mnemo.maintenance.export import export_namespace, import_namespace  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from mnemo.stores.files import NamespaceFiles  # noqa: E402
from mnemo.stores.graph import GraphStore  # noqa: E402
from mnemo.stores.vectors import VectorStore  # noqa: E402
from ontology import load_ontology  # noqa: E402


def ingest(data_dir: Path, vault: Path, embedder_kind: str) -> None:
    config = parse_config({"data_dir": str(data_dir), "embedder": {"kind": embedder_kind},
                           "namespaces": {"bench": {"sources": [{"kind": "obsidian", "path": str(vault)}]}}}, data_dir / "mnemo.yaml")
    files, ontology, embedder = NamespaceFiles(data_dir, "bench"), load_ontology(), build_embedder(config.embedder)
    scan_documents(files, config.namespace("bench"))
    chunks, _ = build_chunks(files, config.chunking.max_words)
    VectorStore(files.vectors_path).sync("chunks", chunk_rows(chunks), embedder)
    facts = extract_facts(files, ontology)
    GraphStore(files.graph_path, ontology).apply(facts)
    VectorStore(files.vectors_path).sync("entities", entity_rows(facts), embedder)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--embedder", default="hashing", choices=["hashing", "minilm"])
    args = parser.parse_args()
    ontology = load_ontology()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        vault = Path(shutil.copytree(args.vault, work / "vault"))
        ingest(work / "a", vault, args.embedder)
        original = canonical_dump(work / "a", "bench", ontology)
        folder = sum(p.stat().st_size for p in (work / "a" / "bench").rglob("*") if p.is_file())
        print(f"namespace folder: {folder / 1e6:.2f} MB ({len(original['documents'])} documents, {len(original['chunks'])} chunks)")
        for name in ("bench.tar", "bench.tar.gz"):
            info = backup_namespace(work / "a", "bench", work / name)
            target = work / f"restored-{name}"
            back = restore_namespace(info.path, target)
            same = differences(canonical_dump(target, "bench", ontology), original) == []
            print(f"backup {name}: {info.files} files, {info.path.stat().st_size / 1e6:.2f} MB archive in {info.seconds:.2f} s; "
                  f"restore {back.seconds:.2f} s; round trip identical: {same}")
        began = time.perf_counter()
        out = export_namespace(work / "a", "bench", ontology, work / "export")
        imported = import_namespace(work / "export", work / "imported", ontology)
        same = differences(canonical_dump(work / "imported", "bench", ontology), original) == []
        print(f"export: {out.bytes / 1e6:.2f} MB in {out.seconds:.2f} s; import {imported.seconds:.2f} s; round trip identical: {same} "
              f"(total {time.perf_counter() - began:.2f} s)")
        print("rows:", ", ".join(f"{k} {v}" for k, v in out.rows.items() if v))
    return 0


if __name__ == "__main__":
    sys.exit(main())
