"""Backup/restore and export/import round trips compare canonical dumps; locks and damage are refused."""

import json
import shutil
import threading
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.errors import StoreLocked
from mnemo.maintenance.backup import BackupError, backup_namespace, restore_namespace
from mnemo.maintenance.dump import canonical_dump, differences
from mnemo.maintenance.export import ExportError, export_namespace, import_namespace
from mnemo.stores.locks import namespace_lock
from ontology import load_ontology
from tests.stores.test_crash_consistency import small_vault
from tests.support import Workspace, make_workspace

runner = CliRunner()


def dump(ws: Workspace) -> dict[str, object]:
    return canonical_dump(ws.config.data_dir, "test", load_ontology())


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """A small vault ingested once for the module; tests work on copies of its data."""
    root = tmp_path_factory.mktemp("template")
    vault = small_vault(root / "vault")
    ws = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    ws.ingest()
    return ws


def same_sources(template: Workspace, root: Path) -> Workspace:
    root.mkdir()
    sources = [{"kind": s.kind, "path": str(s.path)} for s in template.config.namespace("test").sources]
    return make_workspace(root, {"test": sources})


@pytest.fixture
def ingested(template: Workspace, tmp_path: Path) -> Workspace:
    ws = same_sources(template, tmp_path / "main")
    shutil.copytree(template.config.data_dir, ws.config.data_dir)
    return ws


@pytest.fixture
def other(template: Workspace, tmp_path: Path) -> Workspace:
    """A second workspace reading the same vault into another, empty data directory."""
    return same_sources(template, tmp_path / "other")


def test_backup_restore_round_trip_through_the_cli(ingested: Workspace, other: Workspace, tmp_path: Path) -> None:
    archive = tmp_path / "backups" / "test.tar.gz"
    result = runner.invoke(app, ["backup", str(archive), "-n", "test", "--config", str(ingested.config_path)])
    assert result.exit_code == 0, result.output
    assert "backed up 'test'" in result.output and archive.stat().st_size > 0
    result = runner.invoke(app, ["restore", str(archive), "--config", str(other.config_path)])
    assert result.exit_code == 0, result.output
    assert differences(dump(other), dump(ingested)) == []


def test_restore_refuses_an_existing_namespace_without_force(ingested: Workspace, tmp_path: Path) -> None:
    info = backup_namespace(ingested.config.data_dir, "test", tmp_path)
    assert info.path.parent == tmp_path and info.path.name.startswith("test-") and info.files > 5
    with pytest.raises(BackupError, match="already has data"):
        restore_namespace(info.path, ingested.config.data_dir)
    before = dump(ingested)
    restore_namespace(info.path, ingested.config.data_dir, force=True)
    assert differences(dump(ingested), before) == []


def test_a_damaged_archive_is_refused_and_nothing_is_replaced(ingested: Workspace, other: Workspace, tmp_path: Path) -> None:
    archive = backup_namespace(ingested.config.data_dir, "test", tmp_path / "b.tar").path
    data = bytearray(archive.read_bytes())
    marker = data.find(b"PAR1", 4096)  # inside the first Parquet member after the index
    data[marker + 40] ^= 0xFF
    archive.write_bytes(bytes(data))
    with pytest.raises(BackupError, match="damaged|do not match"):
        restore_namespace(archive, other.config.data_dir)
    assert not (other.config.data_dir / "test").exists()
    result = runner.invoke(app, ["restore", str(tmp_path / "missing.tar"), "--config", str(other.config_path)])
    assert result.exit_code == 2 and "not a readable mnemo backup" in " ".join(result.output.split())


def test_backup_waits_for_a_running_writer_or_fails_clearly(ingested: Workspace, tmp_path: Path) -> None:
    root = ingested.files().root
    held = threading.Event()

    def writer(seconds: float) -> None:
        with namespace_lock(root):
            held.set()
            time.sleep(seconds)

    thread = threading.Thread(target=writer, args=(0.6,))
    thread.start()
    held.wait()
    with pytest.raises(StoreLocked, match="busy with a running writer"):
        backup_namespace(ingested.config.data_dir, "test", tmp_path / "a.tar", wait_seconds=0.1)
    started = time.monotonic()
    info = backup_namespace(ingested.config.data_dir, "test", tmp_path / "b.tar", wait_seconds=10)
    assert time.monotonic() - started >= 0.3 and info.files > 5
    thread.join()
    assert not (tmp_path / "a.tar").exists()


def test_writers_wait_while_a_backup_holds_the_namespace(ingested: Workspace) -> None:
    root = ingested.files().root
    outcome: list[str] = []

    def write() -> None:
        try:
            ingested.graph().apply(ingested.files().read_facts())
            outcome.append("wrote")
        except StoreLocked as exc:
            outcome.append(str(exc))

    with namespace_lock(root, exclusive=True):
        thread = threading.Thread(target=write)
        thread.start()
        thread.join(0.5)
        assert thread.is_alive() and outcome == []  # the graph writer waits for the backup
    thread.join()
    assert outcome == ["wrote"]


def test_export_import_round_trip(ingested: Workspace, other: Workspace, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    result = runner.invoke(app, ["export", str(folder), "-n", "test", "--config", str(ingested.config_path)])
    assert result.exit_code == 0, result.output
    edges = pl.read_parquet(folder / "graph" / "edges.parquet")
    assert {"valid_from", "valid_to", "observed_at", "doc_id", "extractor", "prompt_version"} <= set(edges.columns)
    entities = pl.read_parquet(folder / "graph" / "Entity.parquet")
    assert entities.height == ingested.graph().counts()["Entity"] and "person_alice_chen" in entities["id"].to_list()
    assert pl.read_parquet(folder / "vectors" / "chunks.parquet").height == ingested.vectors().count("chunks")
    result = runner.invoke(app, ["import", str(folder), "--config", str(other.config_path)])
    assert result.exit_code == 0, result.output
    assert differences(dump(other), dump(ingested)) == []
    again = other.ingest()
    assert other.metadata(again, "entity_graph")["writes"] == 0
    assert other.metadata(again, "entity_vectors")["embedded"] == 0


def test_export_refuses_an_unreadable_vector_table_before_writing(ingested: Workspace, tmp_path: Path) -> None:
    table = ingested.config.data_dir / "test" / "lance" / "chunks.lance"
    shutil.rmtree(table)
    table.mkdir()  # what a kill inside LanceDB's create_table leaves: listed, but it cannot be opened
    folder = tmp_path / "export"
    with pytest.raises(ExportError, match=r"cannot export vector table 'chunks': unreadable .*mnemo doctor --fix"):
        export_namespace(ingested.config.data_dir, "test", load_ontology(), folder)
    assert not folder.exists() or not any(folder.iterdir())


def test_export_and_import_refuse_what_they_cannot_do_safely(ingested: Workspace, tmp_path: Path) -> None:
    folder = tmp_path / "export"
    export_namespace(ingested.config.data_dir, "test", load_ontology(), folder)
    with pytest.raises(ExportError, match="not empty"):
        export_namespace(ingested.config.data_dir, "test", load_ontology(), folder)
    with pytest.raises(ExportError, match="already has data"):
        import_namespace(folder, ingested.config.data_dir, load_ontology())
    (folder / "graph" / "Gossip.parquet").write_bytes((folder / "graph" / "Day.parquet").read_bytes())
    with pytest.raises(ExportError, match="Gossip"):
        import_namespace(folder, tmp_path / "elsewhere", load_ontology())
    with pytest.raises(ExportError, match="not a readable mnemo export"):
        import_namespace(tmp_path, tmp_path / "elsewhere", load_ontology())


def test_restore_and_import_refuse_a_namespace_mnemo_yaml_does_not_list(ingested: Workspace, tmp_path: Path) -> None:
    """The archive names its namespace; one the configuration does not list is refused, naming the
    archive and the file, and nothing is created (a typo'd or foreign archive must not start a memory)."""
    archive = backup_namespace(ingested.config.data_dir, "test", tmp_path / "test.tar").path
    folder = tmp_path / "export"
    export_namespace(ingested.config.data_dir, "test", load_ontology(), folder)
    (tmp_path / "elsewhere").mkdir()
    unlisting = make_workspace(tmp_path / "elsewhere", {"me": []})
    for command, source in (("restore", archive), ("import", folder)):
        result = runner.invoke(app, [command, str(source), "--config", str(unlisting.config_path)])
        said = "".join(result.output.split())
        assert result.exit_code == 2, result.output
        expected = f"{source}: holds namespace 'test', which {unlisting.config_path} does not list (configured: me)"
        assert "".join(expected.split()) in said and "mnemoinitPATH--nametest" in said
        assert not (unlisting.config.data_dir / "test").exists()


def test_an_import_stems_the_full_text_index_in_the_notes_language(ingested: Workspace, other: Workspace,
                                                                    tmp_path: Path) -> None:
    from mnemo.ingest.embedder_choice import CHOICE_FILE
    from mnemo.stores.vector_index import fts_language

    choice = ingested.files().root / CHOICE_FILE  # as ingest records it for a namespace of Spanish notes
    choice.write_text(json.dumps({**json.loads(choice.read_text(encoding="utf-8")), "stemmer": "Spanish"}),
                      encoding="utf-8")
    folder = tmp_path / "export"
    export_namespace(ingested.config.data_dir, "test", load_ontology(), folder)
    import_namespace(folder, other.config.data_dir, load_ontology())
    table = other.vectors().table("chunks")
    assert table is not None and fts_language(table) == "Spanish"
