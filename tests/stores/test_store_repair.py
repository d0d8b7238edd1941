"""Partial and doubled vector state: found, reported, repaired, and never fatal.

A kill while LanceDB creates a table leaves a folder it lists but cannot open; readers then
answer degraded, `mnemo doctor` says so, and the next ingest rebuilds the table. Two ingests of
one namespace at once (separate processes, bypassing the run queue) leave one row per id, and
duplicate ids already present are removed by a re-run and by `mnemo compact`.
"""

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.compute as pc
import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from mnemo.maintenance.dump import differences
from mnemo.stores.embedders import HashingEmbedder
from mnemo.stores.vectors import RowGroup, VectorStore
from tests.stores.test_crash_consistency import small_vault
from tests.support.crash import Setup, child_context, run_in_child, warm_up


def lance(setup: Setup) -> Path:
    return setup.data_dir / setup.namespace / "lance"


def rows_per_id(setup: Setup, name: str) -> tuple[int, int]:
    """(rows, distinct ids) of a vector table."""
    table = VectorStore(lance(setup)).table(name)
    assert table is not None
    ids = table.search().select(["id"]).limit(None).to_arrow()["id"]
    return len(ids), len(pc.unique(ids))


def half_made(folder: Path, kind: str) -> None:
    """The states a kill inside LanceDB's create_table can leave: an empty folder, or data
    files written without the version that makes them a table."""
    data = folder / "data"
    kept = Path(str(folder) + ".data")
    shutil.copytree(data, kept)
    shutil.rmtree(folder)
    folder.mkdir()
    if kind == "data without a version":
        shutil.copytree(kept, data)
    shutil.rmtree(kept)


@pytest.fixture
def ingested(tmp_path: Path) -> tuple[Setup, dict]:
    setup = Setup(tmp_path / "s", [{"kind": "obsidian", "path": str(small_vault(tmp_path / "vault"))}])
    assert setup.run()
    return setup, setup.dump()


@pytest.mark.parametrize("kind", ["empty folder", "data without a version"])
def test_a_half_made_table_degrades_readers_and_the_next_ingest_rebuilds_it(ingested: tuple[Setup, dict], kind: str) -> None:
    setup, expected = ingested
    half_made(lance(setup) / "chunks.lance", kind)
    result = MemoryClient(setup.namespace, setup.config_path).recall("Project Heron")
    assert result.degraded and "'chunks'" in result.degraded and "unreadable" in result.degraded
    status = CliRunner().invoke(app, ["status", "--namespace", setup.namespace, "--config", str(setup.config_path)])
    assert status.exit_code == 3 and "degraded" in status.output, status.output  # DEGRADED_EXIT
    assert setup.run(), "the ingest after a half-made table failed"
    assert differences(setup.dump(), expected) == []
    assert MemoryClient(setup.namespace, setup.config_path).recall("Project Heron").items


def test_doctor_reports_and_fixes_a_half_made_table(ingested: tuple[Setup, dict]) -> None:
    setup, expected = ingested
    half_made(lance(setup) / "chunks.lance", "empty folder")
    args = ["doctor", "--namespace", setup.namespace, "--config", str(setup.config_path)]
    found = CliRunner().invoke(app, args)
    assert found.exit_code == 1 and "found:" in found.output and "'chunks'" in found.output, found.output
    fixed = CliRunner().invoke(app, [*args, "--fix"])
    assert fixed.exit_code == 0 and "fixed: removed the table" in fixed.output, fixed.output
    clean = CliRunner().invoke(app, args)
    assert clean.exit_code == 0 and "nothing found" in clean.output
    assert setup.run() and differences(setup.dump(), expected) == []


def test_duplicate_ids_are_removed_by_a_rerun_and_by_compact(ingested: tuple[Setup, dict]) -> None:
    setup, expected = ingested
    for name in ("chunks", "entities"):
        table = VectorStore(lance(setup)).table(name)
        table.add(table.to_arrow().slice(0, 5))
        rows, ids = rows_per_id(setup, name)
        assert rows == ids + 5
    args = ["doctor", "--namespace", setup.namespace, "--config", str(setup.config_path)]
    assert "ids held by more than one row" in CliRunner().invoke(app, args).output
    assert setup.run()
    rows, ids = rows_per_id(setup, "chunks")
    assert rows == ids
    table = VectorStore(lance(setup)).table("entities")
    table.add(table.to_arrow().slice(0, 3))
    compact = CliRunner().invoke(app, ["compact", "--namespace", setup.namespace, "--config", str(setup.config_path)])
    assert compact.exit_code == 0, compact.output
    assert rows_per_id(setup, "entities")[0] == rows_per_id(setup, "entities")[1]
    assert differences(setup.dump(), expected) == []


def test_two_ingests_of_one_namespace_at_once_leave_one_row_per_id(tmp_path: Path) -> None:
    setup = Setup(tmp_path / "s", [{"kind": "obsidian", "path": str(small_vault(tmp_path / "vault"))}])
    reference = Setup(tmp_path / "ref", setup.sources)
    assert reference.run()
    warm_up()
    context = child_context()
    children = [context.Process(target=run_in_child, args=(str(setup.root), setup.sources)) for _ in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(300)
        assert child.exitcode == 0
    for name in ("chunks", "entities"):
        rows, ids = rows_per_id(setup, name)
        assert rows == ids, f"{name}: {rows} rows for {ids} ids"
    assert differences(setup.dump(), reference.dump()) == []


class SlowEmbedder(HashingEmbedder):
    """The hashing embedder, taking as long as a real model would on a few hundred passages."""

    def encode(self, texts: list[str]) -> np.ndarray:
        time.sleep(1.0)
        return super().encode(texts)


def passages(n: int = 300) -> list[RowGroup]:
    rows = [{"id": f"c{i}", "doc_id": f"d{i // 3}", "embed_text": f"passage {i} about heron number {i}"} for i in range(n)]
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_doc.setdefault(row["doc_id"], []).append(row)
    return [RowGroup(doc, f"v1-{doc}", len(group), _given(group)) for doc, group in by_doc.items()]


def _given(rows: list[dict[str, Any]]) -> Callable[[], list[dict[str, Any]]]:
    return lambda: rows


def sync_in_child(path: str) -> None:
    VectorStore(Path(path)).sync_groups("chunks", passages(), SlowEmbedder())


def test_two_syncs_of_one_table_at_once_write_each_id_once(tmp_path: Path) -> None:
    VectorStore(tmp_path / "lance").sync_groups("chunks", passages(3), HashingEmbedder())  # the table exists, as at a re-ingest
    warm_up()
    context = child_context()
    children = [context.Process(target=sync_in_child, args=(str(tmp_path / "lance"),)) for _ in range(2)]
    for child in children:
        child.start()
        time.sleep(0.5)
    for child in children:
        child.join(120)
        assert child.exitcode == 0
    table = VectorStore(tmp_path / "lance").table("chunks")
    ids = table.search().select(["id"]).limit(None).to_arrow()["id"]
    assert (len(ids), len(pc.unique(ids))) == (300, 300)
