"""Export a namespace to a portable folder of Parquet files, and import it back.

The format (version 2), documented in README.md:

    export.json            format, version, namespace, time, row counts, vector dimensions,
                           and the size and SHA-256 of every other file (`files`)
    graph/<Table>.parquet  every node table of the graph (Note, Chunk, Entity, Alias, Day, ...)
                           with all its columns; `h` is the row's content hash
    graph/edges.parquet    every edge: table, from_table, to_table, src, dst, id, doc_id,
                           role, props (JSON), span_start, span_end, surface, method,
                           extractor, prompt_version, valid_from, valid_to, observed_at, h, run_id
    vectors/<table>.parquet  every LanceDB table with all its columns, `vector` included
    state/...              the pipeline's own files (documents, manifest, chunks, facts,
                           problems), so that an incremental ingest goes on after an import

Nothing in it depends on Kùzu or LanceDB: another graph engine (LadybugDB, Neo4j) loads
graph/ directly. Import checks the whole folder first (`mnemo.maintenance.export_check`), rebuilds both
stores from it beside the namespace, with the same ids and hashes, and swaps the result in
at the end: a failed import leaves the namespace as it was. Version 1 exports (no `files`)
are still read, with every other check.
"""

import datetime as dt
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pyarrow.parquet as pq

from mnemo.config import ArchivesConfig, validate_namespace
from mnemo.facts import GraphFacts
from mnemo.ingest.embedder_choice import recorded_choice
from mnemo.maintenance.archive_guard import DEFAULT_LIMITS, UnsafeArchive, check_inbox_files, check_written
from mnemo.maintenance.export_check import (
    ExportError,
    check_files,
    check_import_size,
    check_tables,
    file_digests,
    present_files,
)
from mnemo.stores.files import NamespaceFiles, write_parquet, write_text_atomic
from mnemo.stores.graph import GraphStore
from mnemo.stores.graph_engine import DEFAULT_ENGINE
from mnemo.stores.graph_schema import EDGE_PROPS, NODE_SCHEMAS, polars_type
from mnemo.stores.locks import namespace_lock
from mnemo.stores.vectors import VectorStore
from ontology import Ontology

FORMAT = "mnemo-export"
VERSION = 2
READABLE = (1, 2)
INDEX = "export.json"
IMPORT_RUN_ID = "import"
STORES = ("graph.kuzu", "lance")  # what an import builds, never copies from state/
__all__ = ["ExportError", "ExportInfo", "export_namespace", "import_namespace", "read_index"]


@dataclass(frozen=True)
class ExportInfo:
    path: Path
    namespace: str
    rows: dict[str, int]
    bytes: int
    seconds: float


def _edge_schema() -> dict[str, Any]:
    ends = {"table": pl.String, "from_table": pl.String, "to_table": pl.String, "src": pl.String, "dst": pl.String}
    return ends | {c: (pl.Int64 if c.startswith("span_") else pl.String) for c in EDGE_PROPS}


def _graph_frames(graph: GraphStore) -> dict[str, pl.DataFrame]:
    frames: dict[str, pl.DataFrame] = {}
    for table, columns in NODE_SCHEMAS.items():
        with graph.reading(wait_seconds=30) as reader:
            rows = reader.node_rows(table, list(columns))
        frames[table] = pl.DataFrame(rows, schema={c: polars_type(t) for c, t in columns.items()})
    edges: list[dict[str, Any]] = []
    for table, pairs in graph.edge_tables.items():
        for a, b in pairs:
            with graph.reading(wait_seconds=30) as reader:
                found = reader.edge_rows(table, a, b, list(EDGE_PROPS))
            edges.extend({"table": table, "from_table": a, "to_table": b, **row} for row in found)
    frames["edges"] = pl.DataFrame(edges, schema=_edge_schema())
    return frames


def _state_files(root: Path) -> list[Path]:
    """The pipeline's own files: everything but the two stores and leftovers of interrupted writes."""
    return [
        p
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and not p.name.endswith(".tmp")
        and not p.relative_to(root).parts[0].startswith(STORES)
    ]


def _unreadable(vectors: VectorStore, name: str) -> ExportError:
    return ExportError(f"cannot export {vectors.problems.get(name) or f'vector table {name!r}: it is gone'}")


def _vector_tables(vectors: VectorStore) -> list[str]:
    """Every vector table, checked to open; one that LanceDB cannot open is refused before anything is written."""
    names = vectors.table_names()
    for name in names:
        if vectors.open(name) is None:
            raise _unreadable(vectors, name)
    return names


def export_namespace(
    data_dir: Path, namespace: str, ontology: Ontology, dest: Path, wait_seconds: float = 60.0,
    engine: str = DEFAULT_ENGINE,
) -> ExportInfo:
    """Write the namespace's graph, vectors and pipeline state to the folder DEST."""
    files = NamespaceFiles(data_dir, namespace)
    if not files.graph_path.exists():
        raise ExportError(f"namespace {namespace!r} has no graph in {data_dir} (run the ingest job first)")
    dest = Path(dest)
    if dest.exists() and any(dest.iterdir()):
        raise ExportError(f"{dest} is not empty; export into a new folder")
    started = time.perf_counter()
    rows: dict[str, int] = {}
    dims: dict[str, int | None] = {}
    with namespace_lock(files.root, exclusive=True, wait_seconds=wait_seconds):
        vectors = VectorStore(files.vectors_path)
        tables = _vector_tables(vectors)
        for name, frame in _graph_frames(GraphStore(files.graph_path, ontology, engine=engine)).items():
            write_parquet(frame, dest / "graph" / f"{name}.parquet")
            rows[f"graph/{name}"] = frame.height
        (dest / "vectors").mkdir(parents=True, exist_ok=True)
        for name in tables:
            data = vectors.snapshot(name)
            if data is None:
                raise _unreadable(vectors, name)
            pq.write_table(data, dest / "vectors" / f"{name}.parquet")
            rows[f"vectors/{name}"], dims[name] = data.num_rows, vectors.dimension(name)
        for path in _state_files(files.root):
            target = dest / "state" / path.relative_to(files.root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    index = {"format": FORMAT, "version": VERSION, "namespace": namespace, "rows": rows, "dimensions": dims,
             "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
             "files": file_digests(dest, INDEX)}
    write_text_atomic(dest / INDEX, json.dumps(index, indent=1, sort_keys=True))
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    return ExportInfo(dest, namespace, rows, size, time.perf_counter() - started)


def read_index(folder: Path) -> dict[str, Any]:
    """The export's export.json, checked to be a mnemo export this version understands."""
    try:
        index = json.loads((Path(folder) / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExportError(f"{folder}: not a readable mnemo export ({exc})") from None
    if not isinstance(index, dict) or index.get("format") != FORMAT or index.get("version") not in READABLE:
        raise ExportError(f"{folder}: not a mnemo export of version {' or '.join(map(str, READABLE))}")
    validate_namespace(str(index.get("namespace")))
    return index


def _read_facts(folder: Path, graph: GraphStore) -> GraphFacts:
    facts = GraphFacts()
    for path in sorted((folder / "graph").glob("*.parquet")):
        table = path.stem
        if table == "edges":
            continue
        if table not in NODE_SCHEMAS:
            raise ExportError(f"{path}: node table {table!r} is unknown to this version of mnemo")
        facts.nodes[table] = {r["id"]: r for r in pl.read_parquet(path).to_dicts()}
    known = set(graph._edge_keys())
    edges = folder / "graph" / "edges.parquet"
    if not edges.is_file():
        raise ExportError(f"{edges}: missing; nothing was imported")
    for row in pl.read_parquet(edges).to_dicts():
        key = (row.pop("table"), row.pop("from_table"), row.pop("to_table"))
        if key not in known:
            raise ExportError(f"{folder}: edge table {key[0]} ({key[1]} -> {key[2]}) is not in this ontology")
        row.pop("run_id", None)
        facts.add_edge(*key, row)
    return facts


def _load_vectors(folder: Path, store: VectorStore, root: Path) -> None:
    """The export's vector tables, their full-text indexes stemmed in the notes' language (as the
    namespace's recorded embedder choice names it)."""
    choice = recorded_choice(root)
    for path in sorted((folder / "vectors").glob("*.parquet")):
        store.restore(path, choice.stemmer if choice else "English")


def import_namespace(
    folder: Path, data_dir: Path, ontology: Ontology, force: bool = False, wait_seconds: float = 60.0,
    limits: ArchivesConfig = DEFAULT_LIMITS, engine: str = DEFAULT_ENGINE,
) -> ExportInfo:
    """Rebuild a namespace's stores and state from an export folder (replacing it only with
    force): the folder is checked whole, the namespace built aside and swapped in at the end."""
    started = time.perf_counter()
    folder = Path(folder)
    index = read_index(folder)
    found = check_files(folder, index.get("files"), INDEX) if index["version"] >= 2 else present_files(folder, INDEX)
    check_import_size(folder, found, limits)
    check_tables(folder, index)
    files = NamespaceFiles(data_dir, str(index["namespace"]))
    _refuse_existing(files, force)
    with namespace_lock(files.root, exclusive=True, wait_seconds=wait_seconds):
        _refuse_existing(files, force)
        staging = Path(tempfile.mkdtemp(dir=files.root.parent, prefix=f".{files.namespace}.import."))
        try:
            built = NamespaceFiles(staging, files.namespace)
            _build(folder, sorted(found), built, ontology, engine)
            if files.root.exists():
                os.replace(files.root, staging / "replaced")
            os.replace(built.root, files.root)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return ExportInfo(folder, files.namespace, dict(index["rows"]), sum(found.values()), time.perf_counter() - started)


def _refuse_existing(files: NamespaceFiles, force: bool) -> None:
    if not force and files.root.exists() and any(files.root.iterdir()):
        raise ExportError(
            f"namespace {files.namespace!r} already has data in {files.root.parent}; pass --force to replace it")


def _build(folder: Path, members: list[str], files: NamespaceFiles, ontology: Ontology, engine: str) -> None:
    """The namespace's state, graph (built with `engine`) and vectors from the export, under `files.root`."""
    _copy_state(folder, members, files.root)
    graph = GraphStore(files.graph_path, ontology, engine=engine)
    facts = _read_facts(folder, graph)
    try:
        graph.apply(facts, run_id=IMPORT_RUN_ID)
    except RuntimeError as exc:  # what Kùzu raises for rows it refuses (a null or repeated id)
        refused = _first_line(exc)
        raise ExportError(f"{folder / 'graph'}: the graph refused its rows ({refused}); nothing was imported") from None
    files.vectors_path.mkdir(parents=True, exist_ok=True)
    _load_vectors(folder, VectorStore(files.vectors_path), files.root)


def _first_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def _copy_state(folder: Path, members: list[str], root: Path) -> None:
    """The export's `state/` files (checked plain files) copied under `root`, never through a link;
    what was written is checked again: plain files inside `root`, inbox ids that name their files."""
    root.mkdir(parents=True, exist_ok=True)
    for rel in members:
        if rel.startswith("state/"):
            if rel.split("/")[1].startswith(STORES):
                raise UnsafeArchive(rel, "the import builds the graph and vector stores itself, not from state/")
            target = root / rel.removeprefix("state/")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / rel, target, follow_symlinks=False)
    check_written(root)
    check_inbox_files(root, "state/")
