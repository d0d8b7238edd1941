"""Store compaction: the graph rebuilt from the memory files holds exactly what the old one did,
in a smaller file once writes have left pages behind; compacted vector tables hold the same rows
in fewer fragments; both wait for the configured growth, and a rebuild cut off before its swap
leaves the old graph in place."""

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.maintenance import compaction
from mnemo.maintenance.compaction import STATE, SUFFIX, compact_stores, read_state
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import sync_graph
from mnemo.stores import faults
from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vectors import VectorStore
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from tests.support import Workspace

pytestmark = pytest.mark.slow  # over 20 s on two cores

T0 = datetime(2026, 11, 21, 3, tzinfo=UTC)


def _churn(workspace: Workspace, vault: Path, rounds: int) -> None:
    """Ingest and consolidate after each of `rounds` edits of a daily note: writes that leave pages behind."""
    note = vault / "Daily" / "2026-09-01.md"
    for i in range(rounds):
        note.write_text(note.read_text(encoding="utf-8") + f"\n- Round {i}: talked with [[Dana Kim]] about the budget.\n",
                        encoding="utf-8")
        workspace.ingest()
        consolidate(workspace.files(), workspace.graph(), SleepConfig(), T0 + timedelta(days=i), "Sam Rivera")


def test_a_rebuilt_graph_holds_the_same_rows_in_a_smaller_file(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    _churn(workspace, vault, 4)
    files, graph = workspace.files(), workspace.graph()
    before, size = graph.dump(), graph.path.stat().st_size

    done = compact_stores(files, graph)

    assert done.rebuilt and done.size == size
    assert graph.dump() == before
    assert done.size_after == graph.path.stat().st_size < size
    assert read_state(files)["graph"]["base"] == done.size_after
    assert sync_graph(files, graph).writes == 0  # what a sync of every table makes it
    assert not list(files.root.glob(f"*{SUFFIX}*"))
    hits = MemoryClient(namespace="test", config=workspace.config_path).recall("budget", mode="deliberate")
    assert hits.items  # the swapped-in file serves reads


def test_the_graph_is_rebuilt_only_once_it_has_grown_enough(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    files, graph = workspace.files(), workspace.graph()
    size = graph.path.stat().st_size

    first = compact_stores(files, graph, growth=2.0)  # nothing noted yet: the present size becomes the base
    assert not first.rebuilt and read_state(files)["graph"]["base"] == size
    again = compact_stores(files, graph, growth=2.0)
    assert not again.rebuilt and again.growth == 1.0

    (files.root / STATE).write_text(json.dumps({"graph": {"base": size // 3}}), encoding="utf-8")  # as if it had tripled since
    grown = compact_stores(files, graph, growth=2.0)
    assert grown.rebuilt and grown.growth == pytest.approx(size / (size // 3), abs=0.01)
    assert read_state(files)["graph"]["base"] == grown.size_after


def test_an_unreadable_state_counts_as_nothing_noted(workspace: Workspace) -> None:
    workspace.ingest()
    files, graph = workspace.files(), workspace.graph()
    (files.root / STATE).write_text("{not json", encoding="utf-8")
    done = compact_stores(files, graph, growth=2.0)
    assert not done.rebuilt and read_state(files)["graph"]["base"] == graph.path.stat().st_size


def test_a_rebuild_cut_off_before_its_swap_leaves_the_old_graph_and_no_new_file(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    _churn(workspace, vault, 1)
    files, graph = workspace.files(), workspace.graph()
    before, stamp = graph.dump(), graph.path.stat()

    with faults.armed("compaction:swap"), pytest.raises(faults.InjectedFault):
        compact_stores(files, graph)

    assert (graph.path.stat().st_ino, graph.path.stat().st_size) == (stamp.st_ino, stamp.st_size)
    assert graph.dump() == before
    assert not list(files.root.glob(f"*{SUFFIX}*"))  # the unfinished rebuild is removed
    graph.path.with_name(graph.path.name + SUFFIX).write_bytes(b"left by a killed rebuild")
    assert compact_stores(files, graph).rebuilt  # the next one starts over
    assert graph.dump() == before
    assert not list(files.root.glob(f"*{SUFFIX}*"))


def test_the_sleep_job_reports_the_store_compaction(workspace: Workspace) -> None:
    workspace.ingest()
    defs = build_defs(default_resources(str(workspace.config_path)))
    job = defs.resolve_job_def("sleep_mode_job")
    result = job.execute_in_process(partition_key="test", instance=workspace.instance, tags={"mnemo/now": T0.isoformat()})
    assert result.success
    noted = workspace.metadata(result, "store_compaction")
    assert noted["graph_rebuilt"] is False and noted["graph_growth"] == 1.0 and noted["rebuild_at_growth"] == 2.0
    assert noted["vector_tables_compacted"] == {}
    assert set(read_state(workspace.files())["vector_files"]) == {"chunks", "entities"}  # their data files noted

    files = workspace.files()
    (files.root / STATE).write_text(json.dumps({"graph": {"base": 1024}}), encoding="utf-8")  # a graph far past twice its base
    result = job.execute_in_process(partition_key="test", instance=workspace.instance, asset_selection=[dg.AssetKey("store_compaction")])
    assert result.success
    made = {e.step_materialization_data.materialization.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert made == {"store_compaction"}  # compaction alone runs no sleep step
    rebuilt = workspace.metadata(result, "store_compaction")
    # a graph with nothing to reclaim is rebuilt to its size, give or take Kùzu's page rounding
    assert rebuilt["graph_rebuilt"] is True and rebuilt["graph_after_mb"] <= rebuilt["graph_mb"] * 1.01
    assert sync_graph(files, workspace.graph()).writes == 0


def test_compacted_vector_tables_hold_the_same_rows_in_fewer_fragments(
    workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    workspace.ingest()
    files, graph = workspace.files(), workspace.graph()
    vectors, embedder = VectorStore(tmp_path / "lance"), HashingEmbedder()
    rows = [{"id": f"n{i}", "embed_text": f"note number {i} about the garden"} for i in range(400)]
    vectors.sync("notes", rows, embedder)
    for i in range(6):  # one new row a write, below the 5 % that folds it into the indexes: a fragment each
        rows.append({"id": f"new{i}", "embed_text": f"a new note {i} on the budget"})
        vectors.sync("notes", rows, embedder)
    held, fragments = vectors.dump("notes"), vectors.fragments("notes")
    data = tmp_path / "lance" / "notes.lance" / "data"
    assert fragments >= 7 and len(list(data.iterdir())) == fragments  # a data file a fragment

    noted = compact_stores(files, graph, vectors, growth=2.0)  # first look: the data files are noted
    assert noted.tables == {} and read_state(files)["vector_files"] == {"notes": fragments}
    monkeypatch.setattr(VectorStore, "_db", _no_lancedb)
    assert compact_stores(files, graph, vectors, growth=2.0).tables == {}  # none gained since: LanceDB never asked
    monkeypatch.undo()
    monkeypatch.setattr(compaction, "FRAGMENT_SLACK", 3)
    (files.root / STATE).write_text(json.dumps({**read_state(files), "vector_files": {"notes": fragments - 4}}), encoding="utf-8")
    done = compact_stores(files, graph, vectors, growth=2.0)

    assert done.tables["notes"][0] == fragments > done.tables["notes"][1]
    assert read_state(files)["vector_files"]["notes"] == len(list(data.iterdir()))  # counted again after compaction
    assert vectors.dump("notes") == held
    assert vectors.table("notes").search("budget").limit(3).to_list()  # the compacted table serves queries


def test_a_vector_table_lancedb_cannot_open_is_left_for_the_next_ingest(workspace: Workspace) -> None:
    workspace.ingest()
    files = workspace.files()
    table = files.vectors_path / "chunks.lance"
    shutil.rmtree(table)
    table.mkdir()  # what a kill inside LanceDB's create_table leaves: listed, no data files, cannot be opened
    done = compact_stores(files, workspace.graph(), VectorStore(files.vectors_path), growth=2.0)
    assert done.tables == {} and set(read_state(files)["vector_files"]) == {"entities"}


def _no_lancedb(store: VectorStore) -> None:
    raise AssertionError("LanceDB was opened")
