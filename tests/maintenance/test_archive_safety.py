"""Archives are data, never paths: an inbox id that is a path, a link of either kind, a device or a
name leaving the target is refused by import and restore (one line, nothing written), a memory
file whose id is a path never names a file, and what a restore or import writes is bounded."""

import hashlib
import io
import json
import os
import shutil
import tarfile
from pathlib import Path

import polars as pl
import pytest
from click.testing import Result
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.config import ArchivesConfig
from mnemo.errors import MnemoError
from mnemo.maintenance.archive_guard import UnsafeArchive
from mnemo.maintenance.backup import BackupError, backup_namespace, restore_namespace
from mnemo.maintenance.export import ExportError, export_namespace, import_namespace
from mnemo.maintenance.export_check import file_digests
from ontology import load_ontology
from tests.stores.test_crash_consistency import small_vault
from tests.support import Workspace, make_workspace, steady_client

runner = CliRunner()
TITLE = "Trip to Oslo"
ESCAPE = "../../../../escape_pwned"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """A small vault ingested once, with one titled memory saved; tests work on copies of its data."""
    root = tmp_path_factory.mktemp("template")
    ws = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(small_vault(root / "vault"))}]})
    ws.ingest()
    steady_client(ws).save(TITLE, "Zephyrine flies to Oslo in March.")
    return ws


@pytest.fixture
def ingested(template: Workspace, tmp_path: Path) -> Workspace:
    """A copy of the template's workspace, its data folder at `tmp_path/root/data`."""
    root = tmp_path / "root"
    root.mkdir()
    sources = [{"kind": s.kind, "path": str(s.path)} for s in template.config.namespace("test").sources]
    ws = make_workspace(root, {"test": sources, "evil": sources})
    shutil.copytree(template.config.data_dir, ws.config.data_dir)
    return ws


def said(result: Result, text: str) -> bool:
    """Whether the command printed the text (rich wraps long lines anywhere, even inside a word)."""
    return "".join(text.split()) in "".join(result.output.split())


def everything_under(folder: Path) -> set[str]:
    """Every path below the folder but the namespaces' lock files (which a refused restore may leave)."""
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.name.endswith(".lock")}


def relist(folder: Path, version: int = 2) -> None:
    """Rewrite export.json's list of files (and version) for the folder as it now is."""
    index = json.loads((folder / "export.json").read_text())
    index["version"] = version
    index["files"] = file_digests(folder, "export.json")
    if version == 1:
        index.pop("files")
    (folder / "export.json").write_text(json.dumps(index))


def exported(ws: Workspace, dest: Path) -> Path:
    export_namespace(ws.config.data_dir, "test", load_ontology(), dest)
    return dest


def inbox_file(folder: Path) -> Path:
    return next((folder / "inbox").glob("mem_*.json"))


def set_id(path: Path, memory_id: str) -> None:
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "id": memory_id, "namespace": "evil"}))


def test_an_export_whose_inbox_id_is_a_path_is_refused(ingested: Workspace, tmp_path: Path) -> None:
    folder = exported(ingested, tmp_path / "export")
    set_id(inbox_file(folder / "state"), ESCAPE)
    relist(folder)
    index = json.loads((folder / "export.json").read_text())
    (folder / "export.json").write_text(json.dumps({**index, "namespace": "evil"}))
    before = everything_under(tmp_path)
    result = runner.invoke(app, ["import", str(folder), "--config", str(ingested.config_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert said(result, "state/inbox/mem_") and said(result, "invalid memory id '../../../../escape_pwned'")
    assert everything_under(tmp_path) == before  # no namespace, no staging folder left behind


def test_a_memory_file_whose_id_is_a_path_never_names_a_file(ingested: Workspace, tmp_path: Path) -> None:
    """The live path: a saved-again or appended memory is written under the id read from its file."""
    set_id(inbox_file(ingested.files().root), ESCAPE)
    client = steady_client(ingested)
    before = everything_under(tmp_path)
    with pytest.raises(MnemoError, match=r"mem_\w+\.json: invalid memory id '\.\./\.\./\.\./\.\./escape_pwned'"):
        client.save(TITLE, "Zephyrine flies to Bergen instead.")
    with pytest.raises(MnemoError, match="invalid memory id"):
        client.append(TITLE, "And on to Tromsø.")
    result = runner.invoke(app, ["save", TITLE, "Bergen", "-n", "test", "--config", str(ingested.config_path)])
    assert result.exit_code != 0 and said(result, "invalid memory id") and "Traceback" not in result.output
    assert everything_under(tmp_path) == before
    assert not list(tmp_path.rglob("escape_pwned*"))


def test_a_memory_file_named_for_another_id_is_refused(ingested: Workspace) -> None:
    path = inbox_file(ingested.files().root)
    set_id(path, "mem_" + "0" * 24)
    with pytest.raises(MnemoError, match="is not its file's name"):
        steady_client(ingested).save(TITLE, "Zephyrine flies to Bergen instead.")


def rewrite_backup(archive: Path, dest: Path, change: dict[str, bytes | None],
                   extra: list[tarfile.TarInfo] = ()) -> Path:  # type: ignore[assignment]
    """A copy of the backup with members' bytes replaced (None: removed), its index relisted, and
    extra (link or device) members added, listed with the size and digest of what they point to."""
    with tarfile.open(archive) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isreg()}  # type: ignore[union-attr]
    index = json.loads(members.pop("backup.json"))
    for name, data in change.items():
        members.pop(name, None) if data is None else members.__setitem__(name, data)
    pointed = {info.name: members.get(info.linkname, members.get(f"data/{info.linkname}", b"")) for info in extra}
    index["files"] = {n.removeprefix("data/"): {"bytes": len(d), "sha256": _sha(d)}
                      for n, d in (members | pointed).items()}
    with tarfile.open(dest, "w:gz") as tar:
        for name, data in {"backup.json": json.dumps(index).encode(), **members}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info)
    return dest


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_backup_whose_inbox_id_is_a_path_is_refused(ingested: Workspace, tmp_path: Path) -> None:
    archive = backup_namespace(ingested.config.data_dir, "test", tmp_path / "b.tar").path
    member = "data/inbox/" + inbox_file(ingested.files().root).name
    data = json.loads(inbox_file(ingested.files().root).read_text()) | {"id": ESCAPE}
    hostile = rewrite_backup(archive, tmp_path / "hostile.tar.gz", {member: json.dumps(data).encode()})
    shutil.rmtree(ingested.files().root)
    before = everything_under(tmp_path)
    result = runner.invoke(app, ["restore", str(hostile), "--config", str(ingested.config_path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert said(result, f"{member}: invalid memory id")
    assert everything_under(tmp_path) == before


def test_import_refuses_a_folder_linked_to_another_namespace(ingested: Workspace, tmp_path: Path) -> None:
    victim_inbox = ingested.files().root / "inbox"
    folder = exported(ingested, tmp_path / "export")
    index = json.loads((folder / "export.json").read_text())
    (folder / "export.json").write_text(json.dumps({**index, "namespace": "evil"}))
    shutil.rmtree(folder / "state" / "inbox")
    (folder / "state" / "inbox").symlink_to(victim_inbox, target_is_directory=True)
    relist(folder)
    with pytest.raises(UnsafeArchive, match=r"^state/inbox: a symbolic link; nothing was written$"):
        import_namespace(folder, ingested.config.data_dir, load_ontology())
    assert not (ingested.config.data_dir / "evil").exists()
    outside = tmp_path / "ssl"
    (outside / "certs").mkdir(parents=True)
    (outside / "certs" / "ca.pem").write_text("secret")
    (folder / "state" / "inbox").unlink()
    (folder / "state" / "certs").symlink_to(outside, target_is_directory=True)
    relist(folder, version=1)
    with pytest.raises(UnsafeArchive, match="state/certs: a symbolic link"):
        import_namespace(folder, ingested.config.data_dir, load_ontology())
    assert not (ingested.config.data_dir / "evil").exists()


@pytest.mark.parametrize("version", [1, 2])
def test_import_refuses_file_links_fifos_and_hard_links(ingested: Workspace, tmp_path: Path, version: int) -> None:
    folder = exported(ingested, tmp_path / "export")
    secret = tmp_path / "secret.txt"
    secret.write_text("the victim's secret")
    problems = folder / "state" / "problems.json"
    problems.unlink()
    problems.symlink_to(secret)  # its target's SHA-256 is what gets listed
    relist(folder, version)
    target = tmp_path / "elsewhere"
    with pytest.raises(UnsafeArchive, match="state/problems.json: a symbolic link"):
        import_namespace(folder, target, load_ontology())
    problems.unlink()
    os.link(secret, problems)
    relist(folder, version)
    with pytest.raises(UnsafeArchive, match=r"state/problems.json: a hard link \(2 names for one file\)"):
        import_namespace(folder, target, load_ontology())
    problems.unlink()
    os.mkfifo(problems)
    relist(folder, version)
    with pytest.raises(UnsafeArchive, match="state/problems.json: not a regular file"):
        import_namespace(folder, target, load_ontology())
    assert not target.exists() or not any(target.rglob("*.json"))


def link_member(name: str, kind: bytes, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(("member", "reason"), [
    (link_member("data/inbox", tarfile.SYMTYPE, "../../other/inbox"), "a link, device or fifo"),
    (link_member("data/extra.parquet", tarfile.SYMTYPE, "manifest.parquet"), "a link, device or fifo"),
    (link_member("data/copy.parquet", tarfile.LNKTYPE, "data/manifest.parquet"), "a link, device or fifo"),
    (link_member("data/null", tarfile.CHRTYPE), "a link, device or fifo"),
    (link_member("data/pipe", tarfile.FIFOTYPE), "a link, device or fifo"),
    (link_member("data/../../escape", tarfile.DIRTYPE), "'..'"),
    (link_member("/etc/escape", tarfile.DIRTYPE), "not allowed"),
    (link_member("data//etc/escape", tarfile.DIRTYPE), "not allowed"),
])
def test_restore_refuses_links_devices_and_names_that_leave(
    ingested: Workspace, tmp_path: Path, member: tarfile.TarInfo, reason: str
) -> None:
    archive = backup_namespace(ingested.config.data_dir, "test", tmp_path / "b.tar").path
    hostile = rewrite_backup(archive, tmp_path / "hostile.tar.gz", {}, [member])
    (tmp_path / "data").mkdir()
    before = everything_under(tmp_path)
    with pytest.raises(UnsafeArchive, match=reason):
        restore_namespace(hostile, tmp_path / "data")
    assert everything_under(tmp_path) == before


@pytest.mark.slow  # a 40 MB archive member, a restore, an export and two CLI runs: over 10 s
def test_restore_and_import_are_bounded_in_size(ingested: Workspace, tmp_path: Path) -> None:
    archive = backup_namespace(ingested.config.data_dir, "test", tmp_path / "b.tar.gz").path
    bomb = rewrite_backup(archive, tmp_path / "bomb.tar.gz", {"data/padding.bin": bytes(40_000_000)})
    assert bomb.stat().st_size < archive.stat().st_size + 100_000  # zeros compress to almost nothing
    tight = ArchivesConfig(min_bytes=0, max_ratio=100.0)
    (tmp_path / "data").mkdir()
    before = everything_under(tmp_path)
    with pytest.raises(UnsafeArchive, match=r"bomb.tar.gz: it would write [\d,]+ bytes, over the limit"):
        restore_namespace(bomb, tmp_path / "data", limits=tight)
    assert everything_under(tmp_path) == before
    restore_namespace(archive, tmp_path / "data", limits=ArchivesConfig(min_bytes=0, max_ratio=1000.0))
    config = ingested.config_path.read_text() + "archives:\n  min_bytes: 1000\n  max_bytes: 5000\n"
    ingested.config_path.write_text(config)
    folder = exported(ingested, tmp_path / "export")
    result = runner.invoke(app, ["import", str(folder), "--config", str(ingested.config_path), "--force"])
    assert result.exit_code == 2 and said(result, "over the limit of 5,000")
    result = runner.invoke(app, ["restore", str(archive), "--config", str(ingested.config_path), "--force"])
    assert result.exit_code == 2 and said(result, "max_bytes 5,000")


@pytest.mark.parametrize("index", [
    {"format": "mnemo-backup", "version": 1, "namespace": "test"},
    {"format": "mnemo-backup", "version": 1, "namespace": "test", "files": {"../x": {"bytes": 1, "sha256": "0"}}},
    {"format": "mnemo-backup", "version": 1, "namespace": "test", "files": {"x": {"bytes": "1"}}},
    {"format": "mnemo-backup", "version": 1, "namespace": "../x", "files": {}},
])
def test_a_malformed_backup_index_is_one_line(tmp_path: Path, index: dict[str, object]) -> None:
    archive = tmp_path / "b.tar"
    with tarfile.open(archive, "w") as tar:
        data = json.dumps(index).encode()
        info = tarfile.TarInfo("backup.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(MnemoError):
        restore_namespace(archive, tmp_path / "data")
    truncated = tmp_path / "t.tar.gz"
    truncated.write_bytes(b"\x1f\x8b\x08\x00" + bytes(20))
    with pytest.raises(BackupError, match="not a readable mnemo backup"):
        restore_namespace(truncated, tmp_path / "data")


def test_an_export_whose_state_holds_a_store_is_refused(ingested: Workspace, tmp_path: Path) -> None:
    folder = exported(ingested, tmp_path / "export")
    (folder / "state" / "lance").write_text("in the way of the vector store")
    relist(folder)
    with pytest.raises(UnsafeArchive, match="state/lance: the import builds the graph and vector stores itself"):
        import_namespace(folder, tmp_path / "elsewhere", load_ontology())


def test_an_export_file_that_is_a_path_to_a_vector_table_is_refused(ingested: Workspace, tmp_path: Path) -> None:
    folder = exported(ingested, tmp_path / "export")
    (folder / "vectors" / "chunks.parquet").rename(folder / "vectors" / "..parquet")
    relist(folder)
    with pytest.raises(ExportError, match="not a vector table name"):
        import_namespace(folder, tmp_path / "elsewhere", load_ontology())
    assert not (tmp_path / "elsewhere").exists()


def null_entity_ids(folder: Path) -> None:
    path = folder / "graph" / "Entity.parquet"
    frame = pl.read_parquet(path)
    frame.with_columns(pl.lit(None, dtype=pl.String).alias("id")).write_parquet(path)
    relist(folder)


def version_1_without_edges(folder: Path) -> None:
    (folder / "graph" / "edges.parquet").unlink()
    relist(folder, version=1)
    index = json.loads((folder / "export.json").read_text())
    index["rows"].pop("graph/edges")
    (folder / "export.json").write_text(json.dumps(index))


@pytest.mark.parametrize(("damage", "message"), [
    (null_entity_ids, "graph: the graph refused its rows (Runtime exception: Found NULL"),
    (version_1_without_edges, "graph/edges.parquet: missing; nothing was imported"),
])
def test_an_export_the_graph_cannot_load_is_one_line(ingested: Workspace, tmp_path: Path, damage, message) -> None:  # noqa: ANN001
    folder = exported(ingested, tmp_path / "export")
    damage(folder)
    result = runner.invoke(app, ["import", str(folder), "--config", str(ingested.config_path), "--force"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert said(result, message)


def test_a_backup_of_hard_linked_files_holds_plain_files_and_restores(ingested: Workspace, tmp_path: Path) -> None:
    root = ingested.files().root
    os.link(root / "problems.json", root / "problems-again.json")
    archive = backup_namespace(ingested.config.data_dir, "test", tmp_path / "b.tar").path
    with tarfile.open(archive) as tar:
        assert all(m.isreg() for m in tar.getmembers())
    restore_namespace(archive, tmp_path / "data")
    again = tmp_path / "data" / "test" / "problems-again.json"
    assert again.read_bytes() == (root / "problems.json").read_bytes() and again.stat().st_nlink == 1
