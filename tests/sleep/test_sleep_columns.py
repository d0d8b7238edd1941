"""The sleep steps read the largest edge tables as columns (`ColumnRows`): every change made to
them (rows added by the LLM facts, ends rewritten by merges) gives what the same change gives
plain dict rows, and the merged sleep facts hold the same edges as the full merged facts."""

from collections import Counter
from typing import Any

import polars as pl

from mnemo.facts import ColumnRows, row_hash
from mnemo.sleep.merges import SLEEP_COLUMNAR, Merge, MergeLog, merged_facts, merged_sleep_facts
from mnemo.sleep.store import SleepFiles
from tests.support import Workspace


def _row(i: str, src: str, dst: str, surface: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": i, "src": src, "dst": dst, "surface": surface}
    row["h"] = row_hash(row)
    return row


def test_column_rows_change_as_dict_rows_do() -> None:
    rows = {r["id"]: r for r in (_row("a", "c1", "e1", "Ana"), _row("b", "c2", "e2", None), _row("c", "c3", "e1", "ana"))}
    columns = ColumnRows(pl.DataFrame(list(rows.values())))
    plain = {i: dict(r) for i, r in rows.items()}
    added = [_row("b", "c2", "e3", None), _row("d", "c4", "e4", "Dee"), _row("d", "c4", "e5", "Dee")]  # a replacement, a new id twice

    columns.extend([dict(r) for r in added])
    plain.update((r["id"], dict(r)) for r in added)
    assert columns.columns("id", "src", "dst", "surface", "h") == [[r[k] for r in plain.values()] for k in ("id", "src", "dst", "surface", "h")]

    columns.remap({"c3": "c9"}, {"e1": "e0"})
    for row in plain.values():
        new = {"c3": "c9"}.get(row["src"], row["src"]), {"e1": "e0"}.get(row["dst"], row["dst"])
        if new != (row["src"], row["dst"]):
            row["src"], row["dst"] = new
            row["h"] = row_hash(row)
    copy = columns.copy()
    assert isinstance(copy, ColumnRows) and len(copy) == len(plain) == 4
    assert dict(columns) == plain  # read as dicts at last: the same rows, in the same order
    assert list(columns) == list(plain)


def test_merged_sleep_facts_hold_the_edges_of_the_merged_facts_as_columns(workspace: Workspace) -> None:
    workspace.ingest()
    files = workspace.files()
    facts = merged_facts(files)
    mentioned = Counter(r["dst"] for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values())
    people = sorted((e for e in mentioned if e.startswith("person_")), key=lambda e: (-mentioned[e], e))
    canonical, merged = people[0], people[1]
    MergeLog(SleepFiles(files.root)).record_merges([Merge("merge_test", canonical, merged, 1.0, ("test",), "test", "2026-11-21")])

    full, columnar = merged_facts(files), merged_sleep_facts(files)
    assert {("MENTIONS", "Chunk", "Entity"), ("ALIAS_OF", "Alias", "Entity")} <= full.edges.keys()
    assert SLEEP_COLUMNAR & columnar.edges.keys() == SLEEP_COLUMNAR & full.edges.keys()  # the vault has no chats
    for key in SLEEP_COLUMNAR & full.edges.keys():
        rows = columnar.edges[key]
        assert isinstance(rows, ColumnRows)  # still columns after the merge rewrote their ends
        assert sorted(zip(*rows.columns("id", "src", "dst"))) == sorted((i, r["src"], r["dst"]) for i, r in full.edges[key].items())
    ends = columnar.edges[("MENTIONS", "Chunk", "Entity")].columns("dst")[0]
    assert merged not in ends and ends.count(canonical) == mentioned[canonical] + mentioned[merged]
