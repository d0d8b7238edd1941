"""Which rows of a vector table a read or a delete selects. Callers say what they want (these
ids, these documents, this time window); the LanceDB filter text is written here alone."""

from collections.abc import Iterable
from dataclasses import dataclass


def sql_quote(value: str) -> str:
    """A SQL string literal for LanceDB filters (single quotes doubled)."""
    return "'" + str(value).replace("'", "''") + "'"


def id_filter(ids: list[str]) -> str:
    return "id IN (" + ", ".join(sql_quote(i) for i in ids) + ")"


@dataclass(frozen=True)
class Filter:
    """A selection of rows; `a | b` selects the rows either selects."""

    sql: str

    @classmethod
    def ids(cls, ids: Iterable[str]) -> "Filter":
        return cls(id_filter(list(ids)))

    @classmethod
    def doc(cls, doc: str) -> "Filter":
        return cls(f"doc_id = {sql_quote(doc)}")

    @classmethod
    def docs(cls, docs: Iterable[str]) -> "Filter":
        return cls("doc_id IN (" + ", ".join(sql_quote(d) for d in docs) + ")")

    @classmethod
    def time(cls, since: str | None, until: str | None, dated_only: bool = False) -> "Filter | None":
        """Rows said or written between since and until (ISO strings compare in time order); an
        undated row (empty timestamp) passes unless `dated_only`. None when neither bound is given."""
        parts = ([f"timestamp >= {sql_quote(since)}"] if since else []) + (
            [f"timestamp <= {sql_quote(until)}"] if until else [])
        if not parts:
            return None
        dated = " AND ".join(["timestamp <> ''", *parts])
        return cls(dated if dated_only else f"(timestamp = '' OR ({dated}))")

    def __or__(self, other: "Filter") -> "Filter":
        return Filter(f"({self.sql}) OR ({other.sql})")
