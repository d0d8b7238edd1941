"""Running Cypher on a graph engine's connection: rows as tuples or dicts, one value, pairs, ids in batches."""

import re
from typing import Any

from mnemo.stores.graph_engine import Connection, QueryResult

BATCH = 5000  # ids per statement of a batched write



_MISSING_TABLE = re.compile(r"Binder exception: Table (\w+) does not exist")


def single(result: QueryResult | list[QueryResult]) -> QueryResult:
    """The result of one statement (Kùzu answers a query of several statements with a list)."""
    if isinstance(result, list):
        raise ValueError(f"expected one Cypher statement, got {len(result)}")
    return result


def _dicts(result: Any) -> list[dict[str, Any]]:
    names = result.get_column_names()
    rows = []
    while result.has_next():
        rows.append(dict(zip(names, result.get_next())))
    return rows


def _rows(conn: Connection, cypher: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    result = single(conn.execute(cypher, params or {}))
    rows = []
    while result.has_next():
        rows.append(tuple(result.get_next()))
    return rows


def row_order(row: "tuple[Any, ...] | list[Any]") -> tuple[tuple[bool, str], ...]:
    """A sort key for a result row of any column types (None first)."""
    return tuple((v is not None, str(v)) for v in row)


def ordered_rows(conn: Connection, cypher: str) -> list[list[Any]]:
    """A query's rows in a fixed order. Kùzu returns rows in the order its threads finish their
    parts of the scan, so what is built from them in row order would differ between runs."""
    result = single(conn.execute(cypher))
    rows: list[list[Any]] = []
    while result.has_next():
        rows.append(list(result.get_next()))
    return sorted(rows, key=row_order)


def arrow_rows(conn: Connection, cypher: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """A query's rows as tuples, fetched as Arrow columns (row by row took twice as long)."""
    table = single(conn.execute(cypher, params or {})).get_as_arrow()
    return list(zip(*(column.to_pylist() for column in table.columns)))


def _pairs(conn: Connection, cypher: str) -> dict[str, str]:
    return dict(arrow_rows(conn, cypher))


def _scalar(conn: Connection, cypher: str) -> int:
    return int(_rows(conn, cypher)[0][0])


def _run_batches(conn: Connection, cypher: str, ids: list[str]) -> None:
    for start in range(0, len(ids), BATCH):
        conn.execute(cypher, {"ids": ids[start:start + BATCH]})


class Reads:
    """Read-only questions on one open connection; the subject modules (`graph_*_reads.py`) add
    the questions, each answered by one or a few queries."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def _ordered(self, cypher: str) -> list[list[Any]]:
        return ordered_rows(self.conn, cypher)

    def _rows(self, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        return [list(row) for row in _rows(self.conn, cypher, params)]

    def _dicts(self, cypher: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        return _dicts(single(self.conn.execute(cypher, params or {})))

    def _arrow(self, cypher: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        return arrow_rows(self.conn, cypher, params)

    # -- the catalog -----------------------------------------------------------------------

    def table_kinds(self) -> dict[str, str]:
        """Table name -> NODE or REL, for every table the graph holds."""
        return {r[1]: r[2] for r in self._ordered("CALL show_tables() RETURN *")}

    def columns_of(self, table: str) -> set[str]:
        """The columns a table of the graph holds."""
        return {r[1] for r in self._ordered(f"CALL table_info('{table}') RETURN *")}

    def connections_of(self, table: str) -> set[tuple[str, str]]:
        """The (from, to) node tables an edge table joins."""
        return {(r[0], r[1]) for r in self._ordered(f"CALL show_connection('{table}') RETURN *")}
