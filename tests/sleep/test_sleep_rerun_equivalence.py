"""An incremental sleep run gives exactly what a full one does: after one changed, added or deleted
note, consolidating with everything reused (Leiden, PageRank, the sync's overlay digests) leaves the
same graph, overlays and state as consolidating a fresh copy of the same stores with nothing reused."""

import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import sync_graph
from mnemo.sleep.picture import salience_histogram
from mnemo.sleep.store import Overlay, SleepFiles, read_json
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from ontology import load_ontology
from tests.support import Workspace

T0 = datetime(2026, 11, 21, 3, tzinfo=UTC)
T1 = T0 + timedelta(days=1, hours=1)
SELF = "Sam Rivera"


def _change(vault: Path) -> None:
    note = vault / "People" / "Sam Rivera.md"
    note.write_text(note.read_text(encoding="utf-8").replace("role: Software engineer", "role: Staff engineer")
                    + "\nLately Sam pairs with [[Priya Nair]] on the docking tests.\n", encoding="utf-8")


def _add(vault: Path) -> None:
    (vault / "Daily" / "2026-11-18.md").write_text(
        "- Long call with [[Alice Chen]] and [[Jonas Weber]] about the Kyoto budget.\n"
        "- Read [[Le Guin, Ursula K.]] again on the train home, slowly and with care.\n", encoding="utf-8")


def _delete(vault: Path) -> None:
    (vault / "People" / "Jonas Weber.md").unlink()


def _state(files: NamespaceFiles) -> dict[str, object]:
    """Every overlay and step state sleep mode keeps (the sync's own bookkeeping aside)."""
    sleep = SleepFiles(files.root)
    found: dict[str, object] = {f"overlay/{s}": sleep.read_overlay(s).to_json() for s in SleepFiles.STEPS}
    for path in sorted((sleep.root / "state").glob("*.json")):
        if path.stem != "sync":
            found[f"state/{path.stem}"] = read_json(path, {})
    found["review"] = read_json(sleep.review_queue, [])
    found["merges"] = sleep.merge_log.read_text(encoding="utf-8") if sleep.merge_log.exists() else ""
    return found


@pytest.mark.parametrize("edit", [_change, _add, _delete], ids=["changed", "added", "deleted"])
def test_incremental_rerun_equals_a_full_run_on_a_fresh_copy(
    workspace: Workspace, vault: Path, tmp_path: Path, edit: Callable[[Path], None],
) -> None:
    workspace.ingest()
    files, graph, settings = workspace.files(), workspace.graph(), SleepConfig()
    consolidate(files, graph, settings, T0, SELF, workspace.vectors())
    edit(vault)
    workspace.ingest()
    fresh = NamespaceFiles(tmp_path / "fresh", "test")
    shutil.copytree(files.root, fresh.root)

    incremental = consolidate(files, graph, settings, T1, SELF, workspace.vectors())
    full = consolidate(fresh, GraphStore(fresh.graph_path, load_ontology()), settings, T1, SELF,
                       workspace.vectors(), reuse=False)

    assert incremental.to_dict() | {"seconds": {}} == full.to_dict() | {"seconds": {}}
    assert _state(files) == _state(fresh)
    assert graph.dump() == GraphStore(fresh.graph_path, load_ontology()).dump()
    assert sync_graph(files, graph).writes == 0  # and both are what a sync of every table makes them


def test_a_run_that_stopped_before_its_sync_is_synced_by_the_next(workspace: Workspace, vault: Path) -> None:
    """Overlays written by a run that never synced, then an ingest that applied them, then a run that
    writes the old overlays back: the graph must follow, though the overlays equal the last synced ones."""
    workspace.ingest()
    files, graph, settings = workspace.files(), workspace.graph(), SleepConfig()
    consolidate(files, graph, settings, T0, SELF)
    synced = graph.dump()
    sleep = SleepFiles(files.root)
    salience = sleep.read_overlay("salience")
    changed = salience.to_json()
    changed["nodes"]["Salience"][0]["score"] = 0.0
    changed["nodes"]["Salience"][0]["h"] = "stopped-before-sync"
    SleepFiles(files.root).write_overlay("salience", Overlay.from_json(changed))  # the interrupted run's write
    workspace.ingest()  # applies the canonical facts, the unsynced overlay included
    assert graph.dump() != synced
    SleepFiles(files.root).write_overlay("salience", salience)  # as the next run would compute it again
    consolidate(files, graph, settings, T0, SELF)
    assert graph.dump() == synced
    assert sync_graph(files, graph).writes == 0


def test_the_salience_picture_is_drawn_again_only_when_what_it_shows_changed(tmp_path: Path) -> None:
    files = NamespaceFiles(tmp_path, "test")
    row = {"id": "salience_e", "item_id": "e", "item_kind": "entity", "score": 0.5, "faded": False}
    path = tmp_path / "none"
    steps = ((0.5, 0.15, True), (0.5, 0.15, False), (0.52, 0.15, False),  # same bar (0.50-0.55): same picture
             (0.1, 0.15, True), (0.1, 0.3, True), (1.0, 0.3, True), (0.99, 0.3, False))  # the last bar holds 1.0
    for score, fade_below, redrawn in steps:
        overlay = Overlay()
        overlay.add_node("Salience", {**row, "score": score})
        SleepFiles(files.root).write_overlay("salience", overlay)
        if path.exists():
            path.write_bytes(b"last picture")
        path = salience_histogram(files, fade_below)
        assert path.read_bytes().startswith(b"\x89PNG") == redrawn


def test_materializing_some_sleep_assets_runs_only_their_steps(workspace: Workspace) -> None:
    workspace.ingest()
    defs = build_defs(default_resources(str(workspace.config_path)))
    result = defs.resolve_job_def("sleep_mode_job").execute_in_process(
        partition_key="test", instance=workspace.instance, asset_selection=[dg.AssetKey("salience_scores")],
        tags={"mnemo/now": T0.isoformat()})
    assert result.success
    made = {e.step_materialization_data.materialization.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    assert made == {"salience_scores"}
    sleep = SleepFiles(workspace.files().root)
    assert sleep.read_overlay("salience").nodes["Salience"] and not sleep.read_overlay("communities").nodes
    assert not (sleep.root / "state" / "dedup.json").exists()
    assert workspace.graph().query("MATCH (s:Salience) RETURN count(s) AS n")[0]["n"] == len(sleep.read_overlay("salience").nodes["Salience"])
