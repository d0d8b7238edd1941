"""The structural extraction's kept pieces are JSON data: a file that is damaged, crafted or
of another version costs a recomputation, never a wrong piece; a pickle is never read."""

import json
import pickle
from pathlib import Path

import pytest

from mnemo.extract.fragments import SHARDS, Fragment, FragmentCache
from mnemo.facts import GraphFacts


def _piece() -> Fragment:
    part = Fragment()
    part.add_node("Entity", {"id": "person_a", "name": "A", "aliases": ["Ay"], "n": 3, "ok": True, "none": None})
    part.add_edge("LINKS_TO", "Note", "Note", {"id": "e1", "src": "a", "dst": "b", "span_start": -1})
    return part


def _days() -> GraphFacts:
    facts = GraphFacts()
    facts.add_node("Day", {"id": "day_2026_09_01", "date": "2026-09-01"})
    return facts


def _kept(folder: Path) -> FragmentCache:
    cache = FragmentCache(folder, "salt")
    cache.get("links", "doc", "k1", _piece)
    cache.get("targets", "doc", "k1", lambda: [("Target", ""), ("Place", "lives_in")])
    cache.get("days", "", "k2", _days)
    cache.save()
    return cache


def test_pieces_come_back_equal_from_their_json_files(tmp_path: Path) -> None:
    _kept(tmp_path)
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".json", ".json"]
    again = FragmentCache(tmp_path, "salt")
    links = again.get("links", "doc", "k1", Fragment)
    assert links.nodes == _piece().nodes and links.edges == _piece().edges
    assert again.get("targets", "doc", "k1", list) == [("Target", ""), ("Place", "lives_in")]
    assert again.get("days", "", "k2", GraphFacts).nodes == _days().nodes
    assert (again.hits, again.misses) == (3, 0)


@pytest.mark.parametrize("damage", [
    lambda e: e["doc"]["links"][1]["nodes"].update({"Entity": {"person_a": ["not", "a", "row"]}}),
    lambda e: e["doc"]["links"][1].update({"kind": "object"}),
    lambda e: e["doc"]["targets"][1].update({"pairs": [["Target", 7]]}),
    lambda e: e["doc"].update({"links": "k1"}),
])
def test_a_crafted_or_damaged_file_is_recomputed(tmp_path: Path, damage: object) -> None:
    _kept(tmp_path)
    [path] = [p for p in tmp_path.glob("*.json") if "doc" in json.loads(p.read_bytes())["entries"]]
    stored = json.loads(path.read_bytes())
    damage(stored["entries"])  # type: ignore[operator]
    path.write_text(json.dumps(stored))
    again = FragmentCache(tmp_path, "salt")
    assert again.get("links", "doc", "k1", _piece).nodes == _piece().nodes
    assert again.misses == 1


class _Marker:
    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.path), "w"))


def test_a_pickle_left_by_an_older_version_is_removed_unread(tmp_path: Path) -> None:
    cache = tmp_path / "structural_cache"
    cache.mkdir()
    for i in range(SHARDS):
        (cache / f"{i:02d}.pickle").write_bytes(pickle.dumps({"salt": "1:salt", "entries": _Marker(tmp_path / "ran")}))
    FragmentCache(cache, "salt")
    assert not (tmp_path / "ran").exists() and list(cache.iterdir()) == []
