"""Every writer goes through one durable write: whole file or none, mode kept, a named fault point.

A fault armed at a writer's point leaves the old file as it was and no temp file beside it; a
replaced file keeps its permissions; the API key file stays private. The ingest run passes the
points of its state and problem files, so the crash tests (which stop a run at every point it
passes) cover them."""

import os
import stat
from pathlib import Path

import pytest

from mnemo.memories.remember import write_memory
from mnemo.serve.api_keys import KeyStore
from mnemo.sources.memory_files import inbox_dir
from mnemo.stores import durable, faults
from mnemo.stores.tombstones import FILE, Tombstones
from tests.support import make_workspace


def _entries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_a_replaced_file_keeps_its_mode_and_a_new_one_gets_the_default(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("{}")
    os.chmod(target, 0o640)
    durable.write_json(target, {"a": 1}, "test:state")
    assert target.read_text() == '{\n "a": 1\n}' and stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "new.json"
    durable.write_text(fresh, "x", "test:new")
    assert stat.S_IMODE(fresh.stat().st_mode) == durable.DEFAULT_MODE


def test_a_fault_at_the_tombstones_point_keeps_the_old_file(tmp_path: Path) -> None:
    Tombstones(chunks={"c1"}).save(tmp_path)
    before = (tmp_path / FILE).read_bytes()
    with faults.armed("tombstones"), pytest.raises(faults.InjectedFault):
        Tombstones(chunks={"c1", "c2"}).save(tmp_path)
    assert (tmp_path / FILE).read_bytes() == before and _entries(tmp_path) == [FILE]
    assert Tombstones.load(tmp_path).chunks == {"c1"}


def test_api_keys_stay_private_and_a_fault_keeps_the_keys_there_were(tmp_path: Path) -> None:
    store = KeyStore(tmp_path)
    first, _ = store.create("example", "laptop")
    path = tmp_path / "api_keys.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with faults.armed("api_keys"), pytest.raises(faults.InjectedFault):
        store.create("example", "phone")
    assert [k.id for k in store.keys()] == [first.id]
    assert sorted(p.name for p in path.parent.iterdir()) == [".api_keys.json.lock", path.name]


def test_a_fault_while_remembering_leaves_no_memory_and_no_temp_file(tmp_path: Path) -> None:
    with faults.armed("inbox:memory"), pytest.raises(faults.InjectedFault):
        write_memory(tmp_path, "example", "Lunch with Dana on Friday.")
    assert _entries(inbox_dir(tmp_path)) == []
    memory = write_memory(tmp_path, "example", "Lunch with Dana on Friday.")
    assert _entries(inbox_dir(tmp_path)) == [f"{memory.id}.json"]


def test_the_ingest_run_passes_the_points_of_its_state_and_problem_files(tmp_path: Path, small_vault: Path) -> None:
    ws = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(small_vault)}]})
    with faults.recording() as trace:
        ws.ingest()
    assert "files:problems.json" in trace
    assert any(name.startswith("state:") for name in trace), sorted(set(trace))
