"""Exports and backups from elsewhere: nothing in them runs code, nothing damaged is imported,
and an import either replaces the namespace whole or leaves it as it was."""

import hashlib
import io
import json
import pickle
import shutil
import tarfile
from pathlib import Path

import pytest

from mnemo.maintenance.backup import BackupError, backup_namespace, restore_namespace
from mnemo.maintenance.dump import canonical_dump, differences
from mnemo.maintenance.export import ExportError, export_namespace, import_namespace
from mnemo.stores import faults
from ontology import load_ontology
from tests.stores.test_crash_consistency import small_vault
from tests.support import Workspace, make_workspace


class _Payload:
    """A pickle that, when loaded, creates the file `marker` (as `os.system` could do anything)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def _hostile_pickle(marker: Path) -> bytes:
    return pickle.dumps({"salt": "any", "entries": _Payload(marker)})


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("template")
    ws = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(small_vault(root / "vault"))}]})
    ws.ingest()
    return ws


def _workspace(template: Workspace, root: Path, with_data: bool) -> Workspace:
    root.mkdir()
    sources = [{"kind": s.kind, "path": str(s.path)} for s in template.config.namespace("test").sources]
    ws = make_workspace(root, {"test": sources})
    if with_data:
        shutil.copytree(template.config.data_dir, ws.config.data_dir)
    return ws


@pytest.fixture
def exported(template: Workspace, tmp_path: Path) -> Path:
    folder = tmp_path / "export"
    export_namespace(template.config.data_dir, "test", load_ontology(), folder)
    return folder


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _reseal(folder: Path) -> None:
    """Recompute export.json's list of files, as a forger would."""
    index = json.loads((folder / "export.json").read_text())
    index["files"] = {p.relative_to(folder).as_posix(): {"bytes": p.stat().st_size, "sha256": _sha(p.read_bytes())}
                      for p in folder.rglob("*") if p.is_file() and p.name != "export.json"}
    (folder / "export.json").write_text(json.dumps(index))


def _leftovers(data_dir: Path) -> list[str]:
    return sorted(p.name for p in data_dir.iterdir() if not p.name.endswith(".lock")) if data_dir.exists() else []


def test_a_pickle_in_an_imported_export_never_runs(template: Workspace, exported: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    cache = exported / "state" / "structural_cache"
    cache.mkdir(parents=True, exist_ok=True)
    (cache / "00.pickle").write_bytes(_hostile_pickle(marker))
    _reseal(exported)
    other = _workspace(template, tmp_path / "other", with_data=False)
    import_namespace(exported, other.config.data_dir, load_ontology())
    assert (other.files().root / "structural_cache" / "00.pickle").exists()
    (other.files().root / "facts_state.json").unlink()  # the structural extraction runs again
    other.ingest()
    assert not marker.exists()
    assert not list((other.files().root / "structural_cache").glob("*.pickle"))
    assert list((other.files().root / "structural_cache").glob("*.json"))


def _forge_backup(archive: Path, rel: str, data: bytes, out: Path) -> None:
    """A copy of the backup with the data file `rel` replaced or added, its checksum recomputed
    in backup.json, as a forger would."""
    with tarfile.open(archive) as tar:
        members = [(m, tar.extractfile(m).read() if m.isfile() else b"")  # type: ignore[union-attr]
                   for m in tar.getmembers()]
    index = json.loads(next(d for m, d in members if m.name == "backup.json"))
    index["files"][rel] = {"bytes": len(data), "sha256": _sha(data)}
    if not any(m.name == "data/" + rel for m, _ in members):
        members.append((tarfile.TarInfo("data/" + rel), data))
    with tarfile.open(out, "w") as tar:
        for member, content in members:
            if member.name == "backup.json":
                content = json.dumps(index).encode()
            elif member.name == "data/" + rel:
                content = data
            member.size = len(content)
            tar.addfile(member, io.BytesIO(content))


def test_a_pickle_in_a_restored_backup_never_runs(template: Workspace, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    archive = backup_namespace(template.config.data_dir, "test", tmp_path / "b.tar").path
    crafted = tmp_path / "crafted.tar"
    _forge_backup(archive, "structural_cache/07.pickle", _hostile_pickle(marker), crafted)
    other = _workspace(template, tmp_path / "other", with_data=False)
    restore_namespace(crafted, other.config.data_dir)
    assert (other.files().root / "structural_cache" / "07.pickle").exists()
    (other.files().root / "facts_state.json").unlink()
    other.ingest()
    assert not marker.exists()
    assert not list((other.files().root / "structural_cache").glob("*.pickle"))


def _flip(path: Path, at: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0x01
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


@pytest.mark.parametrize(("rel", "damage"), [
    ("vectors/chunks.parquet", _flip), ("state/documents.parquet", _flip), ("graph/Entity.parquet", _truncate),
])
def test_a_damaged_export_is_refused_naming_the_file_and_nothing_changes(
    template: Workspace, exported: Path, tmp_path: Path, rel: str, damage: object,
) -> None:
    damage(exported / rel)  # type: ignore[operator]
    fresh = _workspace(template, tmp_path / "fresh", with_data=False)
    with pytest.raises(ExportError, match=rel.replace("/", "[/]")):
        import_namespace(exported, fresh.config.data_dir, load_ontology())
    assert _leftovers(fresh.config.data_dir) == []
    kept = _workspace(template, tmp_path / "kept", with_data=True)
    before = canonical_dump(kept.config.data_dir, "test", load_ontology())
    with pytest.raises(ExportError, match=rel.replace("/", "[/]")):
        import_namespace(exported, kept.config.data_dir, load_ontology(), force=True)
    assert differences(canonical_dump(kept.config.data_dir, "test", load_ontology()), before) == []
    assert _leftovers(kept.config.data_dir) == ["test"]


def test_an_import_that_fails_while_building_leaves_nothing_and_can_be_retried(
    template: Workspace, exported: Path, tmp_path: Path,
) -> None:
    fresh = _workspace(template, tmp_path / "fresh", with_data=False)
    with faults.armed("graph.copy_nodes:Entity"), pytest.raises(faults.InjectedFault):
        import_namespace(exported, fresh.config.data_dir, load_ontology())
    assert _leftovers(fresh.config.data_dir) == []
    import_namespace(exported, fresh.config.data_dir, load_ontology())  # no --force needed
    assert differences(canonical_dump(fresh.config.data_dir, "test", load_ontology()),
                       canonical_dump(template.config.data_dir, "test", load_ontology())) == []


def test_a_version_1_export_is_still_read_and_checked(template: Workspace, exported: Path, tmp_path: Path) -> None:
    index = json.loads((exported / "export.json").read_text())
    assert index["version"] == 2 and "vectors/chunks.parquet" in index["files"]
    del index["files"]
    index["version"] = 1
    (exported / "export.json").write_text(json.dumps(index))
    first = _workspace(template, tmp_path / "first", with_data=False)
    import_namespace(exported, first.config.data_dir, load_ontology())
    assert differences(canonical_dump(first.config.data_dir, "test", load_ontology()),
                       canonical_dump(template.config.data_dir, "test", load_ontology())) == []
    miscounted = tmp_path / "miscounted"
    shutil.copytree(exported, miscounted)
    index["rows"]["graph/Entity"] += 1
    (miscounted / "export.json").write_text(json.dumps(index))
    second = _workspace(template, tmp_path / "second", with_data=False)
    with pytest.raises(ExportError, match="graph/Entity.parquet: .* rows, but export.json says"):
        import_namespace(miscounted, second.config.data_dir, load_ontology())
    _truncate(exported / "state" / "documents.parquet")
    with pytest.raises(ExportError, match="state/documents.parquet: not a readable Parquet file"):
        import_namespace(exported, second.config.data_dir, load_ontology())
    assert _leftovers(second.config.data_dir) == []


def test_an_unlisted_file_in_an_export_is_refused(exported: Path, tmp_path: Path) -> None:
    (exported / "state" / "extra.json").write_text("{}")
    with pytest.raises(ExportError, match="state/extra.json: not listed in export.json"):
        import_namespace(exported, tmp_path / "data", load_ontology())
    assert not (tmp_path / "data").exists()


def test_a_backup_with_a_damaged_table_and_recomputed_checksums_is_refused(template: Workspace, tmp_path: Path) -> None:
    archive = backup_namespace(template.config.data_dir, "test", tmp_path / "b.tar").path
    documents = (template.files().root / "documents.parquet").read_bytes()
    crafted = tmp_path / "crafted.tar"
    _forge_backup(archive, "documents.parquet", documents[: len(documents) // 2], crafted)
    kept = _workspace(template, tmp_path / "kept", with_data=True)
    before = canonical_dump(kept.config.data_dir, "test", load_ontology())
    with pytest.raises(BackupError, match="documents.parquet is not a readable Parquet file; nothing was restored"):
        restore_namespace(crafted, kept.config.data_dir, force=True)
    assert differences(canonical_dump(kept.config.data_dir, "test", load_ontology()), before) == []
    assert _leftovers(kept.config.data_dir) == ["test"]
