"""A namespace's data directory: Parquet tables between pipeline steps, written atomically."""

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from mnemo import faults
from mnemo.config import validate_namespace
from mnemo.documents import Chunk, Document, content_hash
from mnemo.extract.facts import EDGE_COLUMNS, GraphFacts, row_hash
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


def _node_frame(table: str, rows: dict[str, dict[str, Any]]) -> pl.DataFrame:
    from mnemo.stores.graph import NODE_SCHEMAS, _polars_type

    schema = {c: _polars_type(t) for c, t in NODE_SCHEMAS[table].items()}
    return pl.DataFrame([{c: r.get(c) for c in schema} for r in rows.values()], schema=schema)


def _edge_frame(facts: GraphFacts) -> pl.DataFrame:
    schema = {"table": pl.String, "from_table": pl.String, "to_table": pl.String,
              **{c: (pl.Int64 if c.startswith("span_") else pl.String) for c in EDGE_COLUMNS}}
    edges = [
        {"table": t, "from_table": a, "to_table": b, **row}
        for (t, a, b), rows in sorted(facts.edges.items()) for row in rows.values()
    ]
    return pl.DataFrame(edges, schema=schema)


def _stat(path: Path) -> list[int] | None:
    """Size and modification time of a file: what tells that someone rewrote it."""
    if not path.exists():
        return None
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino]


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
        for table, rows in facts.nodes.items():
            write_parquet(_node_frame(table, rows), self.root / folder / f"{table}.parquet")
        write_parquet(_edge_frame(facts), self.root / folder / "edges.parquet")

    def write_changed_facts(self, facts: GraphFacts, folder: str = "facts") -> list[str]:
        """Like `write_facts`, but a table whose rows (ids and row hashes, in order) are what
        this method last wrote, in a file nobody rewrote since, is left as it is. Returns the
        tables written."""
        base = self.root / folder
        sidecar = base / "written.json"
        before = json.loads(sidecar.read_text(encoding="utf-8")) if sidecar.exists() else {}
        tables: dict[str, list[dict[str, Any]]] = {t: list(rows.values()) for t, rows in facts.nodes.items()}
        tables["edges"] = [row for _, rows in sorted(facts.edges.items()) for row in rows.values()]
        after: dict[str, list[Any]] = {}
        written = []
        for table, rows in tables.items():
            path = base / f"{table}.parquet"
            digest = content_hash(json.dumps([[r["id"], r.get("h") or row_hash(r)] for r in rows]), table)
            if before.get(table, [None])[0] == digest and _stat(path) == before[table][1]:
                after[table] = before[table]
                continue
            frame = _edge_frame(facts) if table == "edges" else _node_frame(table, facts.nodes[table])
            write_parquet(frame, path)
            after[table] = [digest, _stat(path)]
            written.append(table)
        if written or not sidecar.exists():
            sidecar.write_text(json.dumps(after), encoding="utf-8")
        return written

    def read_facts(self, folder: str = "facts") -> GraphFacts:
        from mnemo.stores.graph import NODE_SCHEMAS

        facts = GraphFacts()
        base = self.root / folder
        for table in NODE_SCHEMAS:
            path = base / f"{table}.parquet"
            if path.exists():
                facts.nodes[table] = {r["id"]: r for r in pl.read_parquet(path).to_dicts()}
        path = base / "edges.parquet"
        if path.exists():
            for row in pl.read_parquet(path).to_dicts():
                key = (row.pop("table"), row.pop("from_table"), row.pop("to_table"))
                facts.add_edge(*key, row)
        return facts

    def file_digest(self, *names: str) -> str:
        """A digest of the bytes of the named files under the namespace (absent ones included)."""
        parts = []
        for name in names:
            path = self.root / name
            parts.append(hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "-")
        return content_hash(*names, *parts)

    def folder_stats(self, folder: str) -> list[Any]:
        """Name, size, modification time and inode of each file in a folder: what changes
        when any of them is rewritten."""
        base = self.root / folder
        return sorted([p.name, *(_stat(p) or [])] for p in base.iterdir()) if base.is_dir() else []

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
