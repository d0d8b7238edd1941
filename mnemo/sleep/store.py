"""Sleep mode's files in a namespace's data directory (`<namespace>/sleep/`).

- `merges.jsonl`   append-only merge log (merge and unmerge events)
- `review.json`    the review queue of uncertain duplicate pairs
- `overlay/*.json` graph rows each step adds on top of the extraction facts
- `state/*.json`   what a step saw last time (digests), for incremental runs
- `access.jsonl`   append-only access log (see salience.py)
"""

import functools
import json
import os
from pathlib import Path
from typing import Any

import orjson

from mnemo.documents import content_hash
from mnemo.facts import GraphFacts, edge, row_hash
from mnemo.stores import durable
from mnemo.stores.files import file_stamp
from mnemo.stores.session import NamespaceSession


def write_json(path: Path, data: Any) -> None:
    """Write JSON through a temp file and an atomic rename."""
    durable.write_bytes(path, _dumps(data), f"sleep:{path.name}")




def _dumps(data: Any) -> bytes:
    """UTF-8 JSON with sorted keys (orjson: the sleep files are rewritten whole, several MB, every run)."""
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def read_json(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    data = path.read_bytes()
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)  # what orjson refuses but older versions may have written (NaN); else the same error


def append_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    """Append records, one JSON object a line, in a single O_APPEND write (no lock needed)."""
    if not records:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(_dumps(r) + b"\n" for r in records)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every complete line of an append-only log (a torn last line is ignored)."""
    if not path.exists():
        return []
    records = []
    for line in path.read_bytes().splitlines():
        if line.strip():
            try:
                records.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue
    return records


class Overlay:
    """Graph rows one sleep step contributes: nodes per table and edges per table key.

    Built with the previous run's overlay, it reuses rows that did not change instead of hashing
    them again (a re-run over mostly unchanged memory costs little)."""

    def __init__(self, previous: "Overlay | None" = None) -> None:
        self.nodes: dict[str, dict[str, dict[str, Any]]] = {}
        self.edges: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
        self.linked: set[tuple[str, str, str]] = set()  # edge keys whose every row was made by `link`
        self._old_nodes = previous.nodes if previous else {}
        self._previous_edges = previous.edges if previous else {}
        self._old_ends: dict[tuple[str, str, str], dict[tuple[str, str], dict[str, Any]]] = {}

    def _old_edges(self, key: tuple[str, str, str]) -> dict[tuple[str, str], dict[str, Any]]:
        """The previous run's rows of one edge key by (src, dst), indexed when first needed."""
        index = self._old_ends.get(key)
        if index is None:
            index = self._old_ends[key] = {(r["src"], r["dst"]): r for r in self._previous_edges.get(key, {}).values()}
        return index

    def add_node(self, table: str, row: dict[str, Any]) -> None:
        row = {k: v for k, v in row.items() if k != "h"}
        old = self._old_nodes.get(table, {}).get(row["id"])
        if old is not None and "h" in old:
            row["h"] = old["h"]
            if row != old:  # else the same columns and values, so the same hash
                row["h"] = row_hash(row)
        else:
            row["h"] = row_hash(row)
        self.nodes.setdefault(table, {})[row["id"]] = row

    def keep_node(self, table: str, row: dict[str, Any]) -> None:
        """Keep a row of the previous run's overlay as it is (its hash included)."""
        self.nodes.setdefault(table, {})[row["id"]] = row

    def link(self, table: str, from_table: str, to_table: str, src: str, dst: str) -> None:
        """A sleep edge (fully determined by its table and ends), reused from the previous run when it was there."""
        self.link_all(table, from_table, to_table, [(src, dst)])

    def link_all(self, table: str, from_table: str, to_table: str, ends: list[tuple[str, str]]) -> None:
        """`link` for each (src, dst) of `ends` (one pass: summaries and salience make tens of thousands)."""
        if not ends:
            return
        key = (table, from_table, to_table)
        old = self._old_edges(key)
        if key not in self.edges:
            self.linked.add(key)
            kept = self._previous_edges.get(key, {})
            if old and len(old) == len(kept) <= len(ends) and old.keys() == set(ends):
                self.edges[key] = dict(kept)  # last run's ends exactly, one row each: its rows, no lookup per end
                return
        rows = self.edges.setdefault(key, {})
        for src, dst in ends:
            row = old.get((src, dst)) or edge(table, src, dst, "", extractor="sleep")
            rows[row["id"]] = row

    def add_edge(self, table: str, from_table: str, to_table: str, row: dict[str, Any]) -> None:
        self.linked.discard((table, from_table, to_table))
        self.edges.setdefault((table, from_table, to_table), {})[row["id"]] = row

    def same_rows(self, other: "Overlay") -> bool:
        """Whether both hold the same rows (tables left empty do not count)."""
        return _filled(self.nodes) == _filled(other.nodes) and _filled(self.edges) == _filled(other.edges)

    def digest(self) -> str:
        """A digest of every row's table and hash: equal digests, equal rows."""
        return self._digest(self._ordered())

    def to_json(self) -> dict[str, Any]:
        """Nodes and edges as rows; edges made by `link` as [id, src, dst, h] (the rest is the same for every one)."""
        return self._json(self._ordered())

    def digest_and_json(self) -> tuple[str, dict[str, Any]]:
        """`digest()` and `to_json()`, the rows put in order once for both."""
        ordered = self._ordered()
        return self._digest(ordered), self._json(ordered)

    def _ordered(
        self,
    ) -> tuple[list[tuple[str, list[dict[str, Any]]]], list[tuple[tuple[str, str, str], list[dict[str, Any]]]]]:
        """Node tables and edge keys in order, each with its rows in id order."""
        return ([(t, [rows[i] for i in sorted(rows)]) for t, rows in sorted(self.nodes.items())],
                [(k, [rows[i] for i in sorted(rows)]) for k, rows in sorted(self.edges.items())])

    @staticmethod
    def _digest(ordered: tuple[list[Any], list[Any]]) -> str:
        nodes, edges = ordered
        parts = [f"{t}\t{r['id']}\t{r['h']}" for t, rows in nodes for r in rows]
        parts += [f"{key}\t{r['id']}\t{r['h']}" for k, rows in edges for key in ("/".join(k),) for r in rows]
        return content_hash("\n".join(parts))

    def _json(self, ordered: tuple[list[Any], list[Any]]) -> dict[str, Any]:
        nodes, edges = ordered
        return {
            "nodes": dict(nodes),
            "edges": [[list(k), rows] for k, rows in edges if k not in self.linked],
            "links": [
                [list(k), [[r["id"], r["src"], r["dst"], r["h"]] for r in rows]]
                for k, rows in edges
                if k in self.linked
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Overlay":
        overlay = cls()
        for table, rows in data.get("nodes", {}).items():
            overlay.nodes[table] = {r["id"]: r for r in rows}
        for key, rows in data.get("edges", []):
            overlay.edges[tuple(key)] = {r["id"]: r for r in rows}
        for key, rows in data.get("links", []):
            same = _link_columns(key[0])
            overlay.edges[tuple(key)] = {
                i: {**same, "id": i, "src": src, "dst": dst, "h": h} for i, src, dst, h in rows
            }
            overlay.linked.add(tuple(key))
        return overlay

    def add_to(
        self, facts: GraphFacts, edge_tables: frozenset[str] | None = None, skip: frozenset[Any] = frozenset()
    ) -> None:
        """Add these rows to `facts` (edges only of `edge_tables`, when given; no rows of the node
        tables and edge keys in `skip`), leaving out edges whose ends are not in the graph."""
        for table, rows in self.nodes.items():
            if table not in skip:
                facts.nodes.setdefault(table, {}).update(rows)
        for (table, src, dst), rows in self.edges.items():
            if (edge_tables is not None and table not in edge_tables) or (table, src, dst) in skip:
                continue
            for row in rows.values():
                if row["src"] in facts.nodes.get(src, {}) and row["dst"] in facts.nodes.get(dst, {}):
                    facts.add_edge(table, src, dst, row)


@functools.cache
def _link_columns(table: str) -> dict[str, Any]:
    """The columns every edge `Overlay.link` makes in `table` shares (all but id, ends and hash)."""
    return {k: v for k, v in edge(table, "", "", "", extractor="sleep").items() if k not in ("id", "src", "dst", "h")}


def _parsed_overlay(session: NamespaceSession, path: Path) -> tuple[Overlay, list[int] | None]:
    """The overlay in `path` and the file's stamp (None: no file), parsed once per version of the
    file in the session (the sleep step, its checks and recall read the same overlays; callers
    never change an overlay they read)."""
    stamp = file_stamp(path)
    if stamp is None:
        return Overlay(), None
    kept: Overlay | None = session.kept(path, stamp)
    if kept is not None:
        return kept, stamp
    overlay = Overlay.from_json(read_json(path, {}))
    session.keep(path, stamp, overlay)
    return overlay, stamp


def _filled(tables: dict[Any, dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {k: rows for k, rows in tables.items() if rows}


class SleepFiles:
    """Paths of sleep mode's files for one namespace. An instance keeps the overlays it read or
    wrote (use one instance per run: the steps then share them instead of parsing files again);
    instances given one `session` share what they parse."""

    STEPS = ("communities", "abstractions", "summaries", "salience", "profile")

    def __init__(self, namespace_root: Path, session: NamespaceSession | None = None) -> None:
        self.root = Path(namespace_root) / "sleep"
        self.session = session or NamespaceSession(Path(namespace_root))
        self._overlays: dict[str, Overlay] = {}
        self._at_start: dict[str, Overlay] = {}
        self._digests: dict[int, tuple[Overlay, str]] = {}
        self._stamps: dict[str, list[int] | None] = {}  # step -> its file's stamp as this instance read or wrote it
        self._start_stamps: dict[str, list[int] | None] = {}

    @property
    def merge_log(self) -> Path:
        return self.root / "merges.jsonl"

    @property
    def review_queue(self) -> Path:
        return self.root / "review.json"

    @property
    def access_log(self) -> Path:
        return self.root / "access.jsonl"

    def read_overlay(self, step: str) -> Overlay:
        if step not in self._overlays:
            self._overlays[step], stamp = _parsed_overlay(self.session, self.root / "overlay" / f"{step}.json")
            self._stamps[step] = self._start_stamps[step] = stamp
            self._at_start.setdefault(step, self._overlays[step])
        return self._overlays[step]

    def digest(self, overlay: Overlay, step: str | None = None, synced: dict[str, Any] | None = None) -> str:
        """`overlay.digest()`, computed once per overlay this instance read or wrote. Given the step
        and the sync state, the step's overlay as read at the start from the very file the last sync
        recorded (`files_read`) has the digest that sync recorded: it is not computed again."""
        kept = self._digests.get(id(overlay))
        if kept is None or kept[0] is not overlay:
            synced = synced or {}
            files = synced.get("files", {})
            same_file = step in files and step in self._start_stamps and overlay is self._at_start.get(step) \
                and files[step] == self._start_stamps[step]  # None for both: no file then, none now
            recorded = synced.get("steps", {}).get(step) if same_file else None
            kept = self._digests[id(overlay)] = overlay, recorded or overlay.digest()
        return kept[1]

    def files_read(self) -> dict[str, list[int] | None]:
        """Step -> the stamp of its overlay file as this instance last read or wrote it."""
        return dict(self._stamps)

    def at_start(self, step: str) -> Overlay | None:
        """The step's overlay as the file held it when this instance first read it (None if it did not)."""
        return self._at_start.get(step)

    def write_overlay(self, step: str, overlay: Overlay, previous: Overlay | None = None) -> bool:
        """Write the step's overlay unless it equals `previous` (what is on disk); whether it wrote.
        The write is noted as not yet synced to the graph first (see merges.sync_sleep_tables)."""
        if previous is not None and overlay.same_rows(previous):
            self._overlays[step] = previous
            return False
        sync = self.read_state("sync")
        pending = sync.setdefault("pending", {}).setdefault(step, [])
        digest, data = overlay.digest_and_json()
        self._digests[id(overlay)] = overlay, digest
        if digest not in pending:
            pending.append(digest)
            self.write_state("sync", sync)
        path = self.root / "overlay" / f"{step}.json"
        write_json(path, data)
        self._stamps[step] = file_stamp(path)
        if self._stamps[step] is not None:
            self.session.keep(path, self._stamps[step], overlay)
        self._overlays[step] = overlay
        return True

    def read_state(self, step: str) -> dict[str, Any]:
        return read_json(self.root / "state" / f"{step}.json", {})

    def write_state(self, step: str, state: dict[str, Any]) -> None:
        """Write the step's state unless the file already holds it (as this version writes it:
        compared as bytes, no parse)."""
        path, data = self.root / "state" / f"{step}.json", _dumps(state)
        try:
            if path.read_bytes() == data:
                return
        except FileNotFoundError:
            pass
        durable.write_bytes(path, data, f"sleep:{path.name}")
