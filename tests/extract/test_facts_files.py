"""The facts files a re-run writes equal a whole rewrite from the facts, while only the rows whose
hash changed are converted from dicts (the rest are taken from the file as this process's
method last wrote it); a file someone else rewrote, or one of an older version, is rewritten whole."""

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from mnemo.facts import GraphFacts, edge, row_hash
from mnemo.stores import files as files_module
from mnemo.stores.files import NamespaceFiles, _edge_frame, _node_frame
from mnemo.stores.graph_schema import NODE_SCHEMAS
from mnemo.stores.session import NamespaceSession

KEYS = [("MENTIONS", "Chunk", "Entity"), ("HAS_CHUNK", "Note", "Chunk"), ("LINKS_TO", "Note", "Note"), ("ON_DAY", "Note", "Day")]


def _value(kind: str, rng: random.Random) -> Any:
    if kind == "INT64":
        return rng.randint(-3, 10_000)
    if kind == "STRING[]":
        return [f"t{rng.randint(0, 9)}" for _ in range(rng.randint(0, 3))]
    if kind == "BOOLEAN":
        return rng.random() < 0.5
    return rng.choice(["", None, f"text {rng.randint(0, 10**6)}"])


def _node(table: str, i: int, rng: random.Random) -> dict[str, Any]:
    row = {c: _value(kind, rng) for c, kind in NODE_SCHEMAS[table].items() if c not in ("id", "h")}
    row["id"] = f"{table.lower()}_{i}"
    if rng.random() < 0.05:
        return row  # a row without its hash: always converted
    row["h"] = row_hash(row)
    return row


def _edge(key: tuple[str, str, str], i: int, rng: random.Random) -> dict[str, Any]:
    return edge(key[0], f"a{i}", f"b{rng.randint(0, 50)}", f"doc{rng.randint(0, 5)}", start=rng.randint(-1, 99), surface=f"s{i}",
                method=rng.choice(["", "wikilink"]))


def _facts(rng: random.Random) -> GraphFacts:
    facts = GraphFacts()
    for table in ("Chunk", "Note", "Day", "Entity"):
        for i in range(rng.randint(0, 60)):
            row = _node(table, i, rng)
            facts.nodes[table][row["id"]] = row
    for key in KEYS:
        for i in range(rng.randint(0, 80)):
            row = _edge(key, i, rng)
            facts.edges.setdefault(key, {})[row["id"]] = row
    return facts


def _change(facts: GraphFacts, rng: random.Random) -> None:
    """Rows changed, added, removed, moved to the end; whole tables emptied or filled."""
    for table in ("Chunk", "Note", "Day", "Entity"):
        rows = facts.nodes[table]
        for _ in range(rng.randint(0, 4)):
            if rows and rng.random() < 0.4:
                old = rows.pop(rng.choice(list(rows)))
                if rng.random() < 0.5:
                    rows[old["id"]] = old  # the same row, now last
            else:
                row = _node(table, rng.randint(0, 90), rng)
                rows[row["id"]] = row
        if rng.random() < 0.03:
            rows.clear()
    for key in KEYS:
        edges = facts.edges.setdefault(key, {})
        for _ in range(rng.randint(0, 4)):
            if edges and rng.random() < 0.4:
                edges.pop(rng.choice(list(edges)))
            else:
                row = _edge(key, rng.randint(0, 120), rng)
                edges[row["id"]] = row
        if rng.random() < 0.03:
            del facts.edges[key]


def _converted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of rows each conversion from dicts to a frame takes from here on."""
    seen: list[int] = []
    nodes, edges = files_module._node_rows_frame, files_module._edge_rows_frame
    monkeypatch.setattr(files_module, "_node_rows_frame", lambda schema, values: seen.append(len(values)) or nodes(schema, values))
    monkeypatch.setattr(files_module, "_edge_rows_frame", lambda groups: seen.append(sum(len(g) for _, g in groups)) or edges(groups))
    return seen


def _assert_written_whole(files: NamespaceFiles, facts: GraphFacts) -> None:
    base = files.root / "facts"
    for table, rows in facts.nodes.items():
        assert pl.read_parquet(base / f"{table}.parquet").equals(_node_frame(table, rows)), table
    assert pl.read_parquet(base / "edges.parquet").equals(_edge_frame(facts))


def test_rewrites_patched_from_the_file_equal_whole_rewrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    files = NamespaceFiles(tmp_path, "test")
    facts = _facts(rng)
    files.write_changed_facts(facts)
    converted = _converted(monkeypatch)
    patched_rounds = 0
    for _ in range(80):
        before = {t: {i: r.get("h") for i, r in rows.items()} for t, rows in facts.nodes.items()}
        before_edges = {k: {i: r["h"] for i, r in rows.items()} for k, rows in facts.edges.items()}
        _change(facts, rng)
        converted.clear()
        written = files.write_changed_facts(facts)
        rows_converted = sum(converted)
        _assert_written_whole(files, facts)
        changed = sum(1 for t in written if t != "edges" for i, r in facts.nodes[t].items()
                      if r.get("h") is None or before[t].get(i) != r["h"])
        changed += sum(1 for k, rows in facts.edges.items() for i, r in rows.items() if before_edges.get(k, {}).get(i) != r["h"]) \
            if "edges" in written else 0
        assert rows_converted == changed  # only changed rows went through dicts
        patched_rounds += rows_converted < sum(len(facts.nodes[t]) if t != "edges" else sum(map(len, facts.edges.values())) for t in written)
    assert patched_rounds >= 40


def test_a_file_rewritten_by_someone_else_or_an_older_version_is_rewritten_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    files = NamespaceFiles(tmp_path, "test")
    facts = _facts(rng)
    while not facts.nodes["Chunk"]:
        facts = _facts(rng)
    files.write_changed_facts(facts)
    base = files.root / "facts"
    pl.read_parquet(base / "Chunk.parquet").head(1).write_parquet(base / "Chunk.parquet")  # a hand edit: one row left
    pl.read_parquet(base / "edges.parquet").drop("observed_at").write_parquet(base / "edges.parquet")  # an older version
    converted = _converted(monkeypatch)
    row = _node("Chunk", 999, rng)
    facts.nodes["Chunk"][row["id"]] = row
    new = _edge(KEYS[0], 999, rng)
    facts.edges.setdefault(KEYS[0], {})[new["id"]] = new
    assert set(files.write_changed_facts(facts)) == {"Chunk", "edges"}
    assert sorted(converted) == sorted([len(facts.nodes["Chunk"]), sum(map(len, facts.edges.values()))])
    _assert_written_whole(files, facts)


@dataclass(frozen=True)
class _Item:
    key: str
    size: int
    tags: tuple[str, ...]


_ITEM_SCHEMA = {"key": pl.String, "size": pl.Int64, "tags": pl.List(pl.String)}


def _item_row(item: _Item) -> dict[str, Any]:
    return {"key": item.key, "size": item.size, "tags": list(item.tags)}


def _item(row: dict[str, Any]) -> _Item:
    return _Item(row["key"], row["size"], tuple(row["tags"]))


def test_a_table_written_again_takes_the_rows_it_read_from_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    from_dicts: list[int] = []
    frame = files_module._rows_frame
    monkeypatch.setattr(files_module, "_rows_frame", lambda rows, schema: from_dicts.append(len(rows)) or frame(rows, schema))
    path = tmp_path / "items.parquet"
    session = NamespaceSession(tmp_path)

    def fresh() -> _Item:
        return _Item(f"k{rng.randint(0, 10**6)}", rng.randint(0, 99), tuple(f"t{rng.randint(0, 5)}" for _ in range(rng.randint(0, 3))))
    items = [fresh() for _ in range(40)]
    files_module._write_parsed(session, path, items, _item_row, _item, _ITEM_SCHEMA)
    converted = 0
    real = _item_row

    def counted(item: _Item) -> dict[str, Any]:
        nonlocal converted
        converted += 1
        return real(item)
    for round_ in range(60):
        items = files_module._read_parsed(session, path, lambda: pl.read_parquet(path), _item)
        before = set(map(id, items))
        if round_ % 17 == 5:  # someone else rewrote the file: nothing is taken from it
            pl.DataFrame([_item_row(i) for i in reversed(items)], schema=_ITEM_SCHEMA).write_parquet(path)
            items = files_module._read_parsed(session, path, lambda: pl.read_parquet(path), _item)
            before = set(map(id, items))
        for _ in range(rng.randint(0, 4)):
            choice = rng.random()
            if items and choice < 0.3:
                items.pop(rng.randrange(len(items)))
            elif items and choice < 0.5:
                items.append(items.pop(rng.randrange(len(items))))  # moved
            else:
                items.insert(rng.randint(0, len(items)), fresh())
        converted, from_dicts[:] = 0, []
        files_module._write_parsed(session, path, items, counted, _item, _ITEM_SCHEMA)
        assert pl.read_parquet(path).equals(pl.DataFrame([_item_row(i) for i in items], schema=_ITEM_SCHEMA))
        assert converted == sum(id(i) not in before for i in items)
        assert sum(from_dicts) == (converted if converted < len(items) else len(items))  # only new items' rows
