"""A namespace's data directory: Parquet tables between pipeline steps, written atomically."""

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from mnemo import faults
from mnemo.config import validate_namespace
from mnemo.documents import Chunk, Document
from mnemo.extract.facts import EDGE_COLUMNS, GraphFacts
from mnemo.sources.scan import ManifestEntry

DOCUMENT_SCHEMA = {
    "id": pl.String, "namespace": pl.String, "source": pl.String, "path": pl.String, "title": pl.String,
    "kind": pl.String, "body": pl.String, "content_hash": pl.String, "aliases": pl.List(pl.String),
    "tags": pl.List(pl.String), "properties": pl.String, "links": pl.String, "created": pl.String,
    "modified": pl.String, "day": pl.String, "problems": pl.List(pl.String),
    "segments": pl.String,
}
MANIFEST_SCHEMA = {
    "source": pl.String, "path": pl.String, "mtime_ns": pl.Int64, "size": pl.Int64,
    "file_hash": pl.String, "doc_ids": pl.List(pl.String),
}
CHUNK_SCHEMA = {
    "id": pl.String, "namespace": pl.String, "doc_id": pl.String, "position": pl.Int64, "heading": pl.String,
    "text": pl.String, "path": pl.String, "title": pl.String, "kind": pl.String, "timestamp": pl.String,
    "prev_id": pl.String, "next_id": pl.String, "metadata": pl.String,
}


def write_parquet(frame: pl.DataFrame, path: Path) -> None:
    """Write via a temp file in the same folder and an atomic rename: never a half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        frame.write_parquet(tmp)
        faults.point(f"files:{path.name}")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class NamespaceFiles:
    """Paths and tables of one namespace under the data directory."""

    def __init__(self, data_dir: Path, namespace: str) -> None:
        self.namespace = validate_namespace(namespace)
        self.root = Path(data_dir) / namespace

    @property
    def graph_path(self) -> Path:
        return self.root / "graph.kuzu"

    @property
    def vectors_path(self) -> Path:
        return self.root / "lance"

    def _table(self, name: str) -> Path:
        return self.root / f"{name}.parquet"

    def _read(self, name: str, schema: dict[str, Any]) -> pl.DataFrame:
        path = self._table(name)
        return pl.read_parquet(path) if path.exists() else pl.DataFrame(schema=schema)

    def read_documents(self) -> list[Document]:
        return [Document.from_row(r) for r in self._read("documents", DOCUMENT_SCHEMA).to_dicts()]

    def write_documents(self, docs: list[Document]) -> None:
        write_parquet(pl.DataFrame([d.to_row() for d in docs], schema=DOCUMENT_SCHEMA), self._table("documents"))

    def read_manifest(self) -> list[ManifestEntry]:
        rows = self._read("manifest", MANIFEST_SCHEMA).to_dicts()
        return [ManifestEntry(**{**r, "doc_ids": tuple(r["doc_ids"])}) for r in rows]

    def write_manifest(self, entries: list[ManifestEntry]) -> None:
        write_parquet(pl.DataFrame([e.to_row() for e in entries], schema=MANIFEST_SCHEMA), self._table("manifest"))

    def read_chunks(self) -> list[Chunk]:
        rows = self._read("chunks", CHUNK_SCHEMA).to_dicts()
        return [Chunk(**{**r, "metadata": json.loads(r["metadata"] or "{}")}) for r in rows]

    def write_chunks(self, chunks: list[Chunk]) -> None:
        write_parquet(pl.DataFrame([c.to_row() for c in chunks], schema=CHUNK_SCHEMA), self._table("chunks"))

    def write_facts(self, facts: GraphFacts, folder: str = "facts") -> None:
        """The extractions: one Parquet file per node table and one for all edges."""
        from mnemo.stores.graph import NODE_SCHEMAS, _polars_type

        for table, rows in facts.nodes.items():
            schema = {c: _polars_type(t) for c, t in NODE_SCHEMAS[table].items()}
            frame = pl.DataFrame([{c: r.get(c) for c in schema} for r in rows.values()], schema=schema)
            write_parquet(frame, self.root / folder / f"{table}.parquet")
        schema = {"table": pl.String, "from_table": pl.String, "to_table": pl.String,
                  **{c: (pl.Int64 if c.startswith("span_") else pl.String) for c in EDGE_COLUMNS}}
        edges = [
            {"table": t, "from_table": a, "to_table": b, **row}
            for (t, a, b), rows in sorted(facts.edges.items()) for row in rows.values()
        ]
        write_parquet(pl.DataFrame(edges, schema=schema), self.root / folder / "edges.parquet")

    def read_facts(
        self, folder: str = "facts", without: frozenset[tuple[str, str, str]] = frozenset(),
        only: frozenset[tuple[str, str, str]] | None = None,
    ) -> GraphFacts:
        """The facts written by `write_facts`; edge tables keyed (table, from, to) in `without`, or
        not in `only` when given, are left unread (a reader that never looks at them saves turning
        their rows into dicts)."""
        from mnemo.stores.graph import NODE_SCHEMAS

        facts = GraphFacts()
        base = self.root / folder
        for table in NODE_SCHEMAS:
            path = base / f"{table}.parquet"
            if path.exists():
                facts.nodes[table] = {r["id"]: r for r in pl.read_parquet(path).to_dicts()}
        path = base / "edges.parquet"
        if path.exists():
            frame = pl.read_parquet(path)
            for key, rows in frame.partition_by("table", "from_table", "to_table", as_dict=True, maintain_order=True).items():
                if key in without or (only is not None and key not in only):
                    continue
                rows = rows.drop("table", "from_table", "to_table")
                facts.edges.setdefault(key, {}).update(zip(rows["id"].to_list(), rows.to_dicts()))
        return facts

    def write_problems(self, problems: list[dict[str, Any]]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / "problems.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(problems, indent=1, ensure_ascii=False), encoding="utf-8")
        faults.point("files:problems.json")
        os.replace(tmp, path)

    def read_problems(self) -> list[dict[str, Any]]:
        path = self.root / "problems.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
