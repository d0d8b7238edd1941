"""The graph store: one adapter over the graph engine (Kùzu or LadybugDB, see `graph_engine`) for
DDL, reconciling writes and reads.

Kùzu lets one process open a database at a time, so the database is opened only for a
unit of work and closed again (or, inside `GraphStore.session`, for the units of work of one
block: one opening and one checkpoint for all of them). Writes reconcile the graph with the desired GraphFacts:
every node and edge carries a content hash `h`, so a re-run with unchanged facts writes
nothing, and a half-done run is repaired by the next one.
"""

import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from mnemo.documents import content_hash
from mnemo.errors import GraphIncomplete, OntologyError, StoreLocked
from mnemo.facts import GraphFacts
from mnemo.stores import faults
from mnemo.stores.cypher import _MISSING_TABLE, BATCH, _dicts, _pairs, _rows, _run_batches
from mnemo.stores.graph_engine import DEFAULT_ENGINE, Connection, Database, engine_module, open_database
from mnemo.stores.graph_reader import GraphReader
from mnemo.stores.graph_schema import (
    EDGE_PROPS,
    EDGE_TYPES,
    GROWN_COLUMNS,
    NODE_SCHEMAS,
    STRUCTURAL_EDGES,
    polars_type,
)
from mnemo.stores.kept import applied_before, keep_applied
from mnemo.stores.locks import namespace_lock, writer
from ontology import Ontology

# Signs that another process is writing: its lock; shadow pages of a write in progress (or cut
# off); and the write-ahead log vanishing under a reader while the writer checkpoints.
_LOCK_HINTS = ("lock", "Lock", "shadow pages", ".wal: No such file")
# up to these many new rows a CREATE is cheaper than a COPY (measured at 10k notes: one node 13 ms vs
# 0.42 s, 1,000 nodes 52 vs 56 ms; one edge 28 ms vs 0.34 s, 100 edges 89 vs 163 ms)
FEW_NODES = 500
FEW_EDGES = 64
WRITE_WAIT_SECONDS = 120.0  # a writer waits for readers (recall) that hold the database briefly
# Each writer checkpoints as it closes, Kùzu's default. Leaving small logs for a later writer
# (`CALL force_checkpoint_on_close=false`) would save that checkpoint, 0.1-0.5 s a run on a 10k-note
# graph, but every opening then replays the logs of earlier writers, and Kùzu 0.11.3 does not replay
# them faithfully: measured, an ingest that opened on the log a consolidation had left read a
# HAS_CHUNK edge neither of them touched, and the next opening of its log no longer found it.


Known = dict[Any, dict[str, str]]  # node table or edge key (table, from, to) -> {id: h} the graph holds


@dataclass
class ApplyStats:
    inserted: dict[str, int] = field(default_factory=dict)
    updated: dict[str, int] = field(default_factory=dict)
    deleted: dict[str, int] = field(default_factory=dict)

    @property
    def writes(self) -> int:
        return sum(self.inserted.values()) + sum(self.updated.values()) + sum(self.deleted.values())


class _Held:
    """A database a session keeps open, with its connection (None until first used), and the
    namespace lock (shared) held from its first opening to the session's end: no backup, restore or
    compaction replaces the file while it is open between units of work."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.db: Database | None = None
        self.conn: Connection | None = None
        self.read_only = True
        self._lock: ExitStack | None = None

    def lock(self) -> None:
        if self._lock is None:
            stack = ExitStack()
            stack.enter_context(namespace_lock(self.root))
            self._lock = stack

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        if self.db is not None:
            self.db.close()
        self.db = self.conn = None

    def end(self) -> None:
        try:
            self.close()
        finally:
            if self._lock is not None:
                self._lock.close()


_SESSIONS = threading.local()  # a session is its opening thread's alone


def _sessions() -> dict[Path, _Held]:
    """This thread's open sessions, by database path."""
    if not hasattr(_SESSIONS, "held"):
        _SESSIONS.held = {}
    return _SESSIONS.held


class GraphStore:
    """A namespace's graph database, opened per unit of work (or per `session`) with `engine`
    (`graph.engine` in mnemo.yaml): a graph another engine built is refused, to be rebuilt."""

    def __init__(self, path: Path, ontology: Ontology, buffer_pool_mb: int = 256, engine: str = DEFAULT_ENGINE) -> None:
        self.path = Path(path)
        self.ontology = ontology
        self.buffer_pool_mb = buffer_pool_mb
        self.engine = engine

    @property
    def edge_tables(self) -> dict[str, tuple[tuple[str, str], ...]]:
        relations = {r.table: (("Entity", "Entity"),) for r in self.ontology.relation_types.values()}
        clashes = set(relations) & (set(STRUCTURAL_EDGES) | set(NODE_SCHEMAS))
        if clashes:
            raise OntologyError(f"relation types {sorted(clashes)} clash with mnemo's structural graph tables")
        return {**STRUCTURAL_EDGES, **relations}

    def _open(self, read_only: bool) -> Database:
        try:
            return open_database(self.engine, self.path, read_only, self.buffer_pool_mb * 1024 * 1024)
        except RuntimeError as exc:
            if any(h in str(exc) for h in _LOCK_HINTS):
                raise StoreLocked(f"graph database {self.path} is in use by another process") from exc
            raise

    @contextmanager
    def session(self) -> Iterator[None]:
        """Units of work in this block (in this thread, on this database, through any GraphStore of
        its path) share one opening: the first opens the database, the next use it (opened again
        for writing if it was opened read-only), and the block's end closes it, checkpointing once.
        The database stays locked from its first use to the block's end."""
        sessions = _sessions()
        if self.path in sessions:  # nested: the outer block closes
            yield
            return
        held = sessions[self.path] = _Held(self.path.parent)
        try:
            yield
        finally:
            del sessions[self.path]
            held.end()

    @contextmanager
    def connect(self, read_only: bool = False, wait_seconds: float = 0.0) -> Iterator[Connection]:
        """Open the database for one unit of work; wait up to wait_seconds for a lock. Inside a
        `session`, the session's opening is used."""
        if read_only and not self.path.exists():
            raise FileNotFoundError(f"graph database {self.path} does not exist yet (run the ingest job first)")
        held = _sessions().get(self.path)
        if held is None:
            with self._opened(read_only, wait_seconds) as conn, self._complete(read_only):
                yield conn
            return
        if held.conn is None or (held.read_only and not read_only):
            held.lock()
            held.close()
            held.db, held.conn = self._open_connected(read_only, wait_seconds)
            held.read_only = read_only
        with self._complete(read_only):
            yield held.conn

    @contextmanager
    def _complete(self, read_only: bool) -> Iterator[None]:
        """A read of one of mnemo's tables that the graph lacks (only a writer completes the schema:
        the write that created the database was cut off, or an older version made it) raises
        `GraphIncomplete`."""
        try:
            yield
        except RuntimeError as exc:
            missing = _MISSING_TABLE.search(str(exc))
            if not read_only or missing is None or missing.group(1) not in {*NODE_SCHEMAS, *self.edge_tables}:
                raise  # a writer's error, or a table mnemo never makes: not an incomplete graph
            raise GraphIncomplete(
                f"graph database {self.path} has no table {missing.group(1)} yet (the write that "
                "created it was cut off, or an older version made it); the next ingest completes it"
            ) from exc

    @contextmanager
    def _opened(self, read_only: bool, wait_seconds: float) -> Iterator[Connection]:
        db, conn = self._open_connected(read_only, wait_seconds)
        try:
            yield conn
        finally:
            conn.close()
            db.close()

    def _open_connected(self, read_only: bool, wait_seconds: float) -> tuple[Database, Connection]:
        """The database opened (waiting up to wait_seconds for a lock) and a connection to it, the
        schema made complete when writable."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                db = self._open(read_only)
                break
            except StoreLocked:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.1)
        conn = engine_module(self.engine).Connection(db)
        try:
            if not read_only:
                self._ensure_schema(conn)
        except BaseException:
            conn.close()
            db.close()
            raise
        return db, conn

    def _ensure_schema(self, conn: Connection) -> None:
        """Create the tables the graph lacks, and the FROM/TO pairs a table made by an older version
        lacks; asks the catalog first (two or three queries where the DDL would be ~40 statements)."""
        present = {name for name, _ in _rows(conn, "CALL show_tables() RETURN name, type")}
        for table, columns in NODE_SCHEMAS.items():
            if table not in present:
                cols = ", ".join(f"{name} {kind}" for name, kind in columns.items())
                conn.execute(f"CREATE NODE TABLE IF NOT EXISTS {table}({cols}, PRIMARY KEY (id))")
            elif table in GROWN_COLUMNS:  # a table made before a column was added
                held = {row[1] for row in _rows(conn, f"CALL table_info('{table}') RETURN *")}
                for name in GROWN_COLUMNS[table]:
                    if name not in held:
                        conn.execute(f"ALTER TABLE {table} ADD IF NOT EXISTS {name} {columns[name]}")
        props = ", ".join(f"{name} {EDGE_TYPES.get(name, 'STRING')}" for name in EDGE_PROPS)
        for table, pairs in self.edge_tables.items():
            if table not in present:
                ends = ", ".join(f"FROM {a} TO {b}" for a, b in pairs)
                conn.execute(f"CREATE REL TABLE IF NOT EXISTS {table}({ends}, {props})")
            elif len(pairs) > 1:  # a graph made before a pair was added
                held = {(a, b) for a, b, *_ in _rows(conn, f"CALL show_connection('{table}') RETURN *")}
                for a, b in pairs:
                    if (a, b) not in held:
                        conn.execute(f"ALTER TABLE {table} ADD IF NOT EXISTS FROM {a} TO {b}")

    # -- writes -------------------------------------------------------------------------

    @writer(lambda store: store.path.parent)
    def apply(
        self, facts: GraphFacts, run_id: str = "", tables: frozenset[str] | None = None, known: Known | None = None,
    ) -> ApplyStats:
        """Make the graph equal to `facts`, touching only what differs (only in `tables`, when given).
        `known` holds, for some node tables and edge keys, what the graph is known to hold (id -> h):
        those are compared with it instead of being read."""
        stats = ApplyStats()
        known = known or {}
        with self.connect(wait_seconds=WRITE_WAIT_SECONDS) as conn:
            current_edges = {
                key: known[key]
                if key in known
                else _pairs(conn, f"MATCH (:{key[1]})-[r:{key[0]}]->(:{key[2]}) RETURN r.id, r.h")
                for key in self._edge_keys()
                if tables is None or key[0] in tables
            }
            for key, current in current_edges.items():
                desired = facts.edges.get(key, {})
                doomed = [i for i, h in current.items() if desired.get(i, {}).get("h") != h]
                faults.point(f"graph.delete_edges:{key[0]}", len(doomed))
                _run_batches(conn, f"MATCH (:{key[1]})-[r:{key[0]}]->(:{key[2]}) WHERE r.id IN $ids DELETE r", doomed)
                stats.deleted[key[0]] = stats.deleted.get(key[0], 0) + len(doomed)
            for table in NODE_SCHEMAS:
                if tables is None or table in tables:
                    self._apply_nodes(conn, table, facts.nodes.get(table, {}), stats, known.get(table))
            for key, current in current_edges.items():
                desired = facts.edges.get(key, {})
                fresh = [row for i, row in desired.items() if current.get(i) != row["h"]]
                self._copy_edges(conn, key, fresh, run_id)
                stats.inserted[key[0]] = stats.inserted.get(key[0], 0) + len(fresh)
        return stats

    def apply_all(self, facts: GraphFacts, run_id: str = "") -> ApplyStats:
        """`apply` all of `facts`, without opening the database when it is as the last `apply_all` of
        the same facts (same engine and tables) left it: nothing has written it since. The rows per
        table are counted on the write's own opening, and kept for `mnemo status` with the digest."""
        digest = content_hash(self.engine, *sorted(self.edge_tables), facts.digest())
        if applied_before(self.path, digest):
            return ApplyStats()
        with self.session():  # one opening for the write and the count; closing it checkpoints
            stats = self.apply(facts, run_id=run_id)
            counts = self.counts()
        keep_applied(self.path, digest, counts)
        return stats

    def _edge_keys(self) -> list[tuple[str, str, str]]:
        return [(table, a, b) for table, pairs in self.edge_tables.items() for a, b in pairs]

    def _apply_nodes(
        self, conn: Connection, table: str, desired: dict[str, dict[str, Any]], stats: ApplyStats,
        current: dict[str, str] | None = None,
    ) -> None:
        current = _pairs(conn, f"MATCH (n:{table}) RETURN n.id, n.h") if current is None else current
        stale = [i for i in current if i not in desired]
        faults.point(f"graph.delete_nodes:{table}", len(stale))
        _run_batches(conn, f"MATCH (n:{table}) WHERE n.id IN $ids DETACH DELETE n", stale)
        changed = [row for i, row in desired.items() if i in current and current[i] != row["h"]]
        faults.point(f"graph.update_nodes:{table}", len(changed))
        columns = NODE_SCHEMAS[table]

        def in_order(
            rows: list[dict[str, Any]],
        ) -> list[dict[str, Any]]:  # one column order: Kùzu refuses a list of mixed structs
            return [{c: row.get(c) for c in columns} for row in rows]

        def value(c: str) -> str:  # a column null in every row of a batch reaches Kùzu typed as a string
            return f"CAST(row.{c} AS DOUBLE)" if columns[c] == "DOUBLE" else f"row.{c}"

        assignments = ", ".join(f"n.{c} = {value(c)}" for c in columns if c != "id")
        for start in range(0, len(changed), BATCH):
            conn.execute(
                f"UNWIND $rows AS row MATCH (n:{table} {{id: row.id}}) SET {assignments}",
                {"rows": in_order(changed[start : start + BATCH])},
            )
        new = [row for i, row in desired.items() if i not in current]
        faults.point(f"graph.copy_nodes:{table}", len(new))
        if 0 < len(new) <= FEW_NODES:  # a COPY into a filled table costs ~0.1-0.4 s however few the rows
            fields = ", ".join(f"{c}: {value(c)}" for c in columns)
            conn.execute(f"UNWIND $rows AS row CREATE (n:{table} {{{fields}}})", {"rows": in_order(new)})
        elif new:
            schema = {c: polars_type(t) for c, t in NODE_SCHEMAS[table].items()}
            frame = pl.DataFrame(  # noqa: F841 (Kùzu reads `frame` from this scope by name)
                [{c: row.get(c) for c in schema} for row in new], schema=schema)
            conn.execute(f"COPY {table} FROM frame")
        stats.deleted[table] = len(stale)
        stats.updated[table] = len(changed)
        stats.inserted[table] = len(new)

    def _copy_edges(
        self, conn: Connection, key: tuple[str, str, str], rows: list[dict[str, Any]], run_id: str
    ) -> None:
        if not rows:
            return
        table, src, dst = key
        faults.point(f"graph.copy_edges:{table}")
        schema = {
            "src": pl.String,
            "dst": pl.String,
            **{c: polars_type(EDGE_TYPES.get(c, "STRING")) for c in EDGE_PROPS},
        }
        records = [{**{c: row.get(c, "") for c in schema}, "run_id": run_id} for row in rows]
        if len(records) <= FEW_EDGES:  # one statement per edge finds its ends by key: ~0.4 ms each, where
            props = ", ".join(f"{c}: ${c}" for c in EDGE_PROPS)  # an UNWIND over the rows costs ~20 ms however few
            create = engine_module(self.engine).PreparedStatement(  # planned once for the table's edges
                conn, f"MATCH (a:{src} {{id: $src}}), (b:{dst} {{id: $dst}}) CREATE (a)-[:{table} {{{props}}}]->(b)")
            for record in records:
                conn.execute(create, record)
        else:
            frame = pl.DataFrame(records, schema=schema)  # noqa: F841 - read by name by the COPY
            conn.execute(f"COPY {table} FROM frame (from='{src}', to='{dst}')")

    # -- reads --------------------------------------------------------------------------

    def counts(self) -> dict[str, int]:
        """Rows per node table and per edge table."""
        if not self.path.exists():
            return {}
        with self.reading(wait_seconds=5) as reads:
            return reads.counts(list(NODE_SCHEMAS), self._edge_keys())

    def dump(self) -> dict[str, list[tuple[Any, ...]]]:
        """A canonical, sorted dump of every node and edge (without run ids), for comparisons."""
        with self.reading(wait_seconds=5) as reads:
            return reads.dump(NODE_SCHEMAS, self._edge_keys())

    @contextmanager
    def reading(self, wait_seconds: float = 2.0) -> Iterator[GraphReader]:
        """The graph's questions (`GraphReader`) on one read-only opening of the database."""
        with self.connect(read_only=True, wait_seconds=wait_seconds) as conn:
            yield GraphReader(conn)

    def query(
        self, cypher: str, params: dict[str, Any] | None = None, wait_seconds: float = 2.0
    ) -> list[dict[str, Any]]:
        """Run one read-only, parameterized query and return rows as dicts."""
        return self.queries([cypher], params, wait_seconds)[0]

    def queries(
        self, cyphers: list[str], params: dict[str, Any] | None = None, wait_seconds: float = 2.0
    ) -> list[list[dict[str, Any]]]:
        """Run several read-only queries in one opening of the database (opening costs more than a query)."""
        with self.connect(read_only=True, wait_seconds=wait_seconds) as conn:
            return [_dicts(conn.execute(cypher, params or {})) for cypher in cyphers]


