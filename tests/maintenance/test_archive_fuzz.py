"""Fuzzing archive members (names, kinds, link targets, sizes, inbox ids): restore and import either
refuse with a MnemoError or write plain files inside the namespace's folder, and nothing else."""

import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.config import ArchivesConfig
from mnemo.errors import MnemoError
from mnemo.maintenance.backup import restore_namespace
from mnemo.maintenance.export import export_namespace, import_namespace
from mnemo.maintenance.export_check import file_digests
from ontology import load_ontology
from tests.stores.test_crash_consistency import small_vault
from tests.support import Workspace, make_workspace, steady_client

KINDS = ("file", "dir", "symlink", "hardlink", "fifo", "device")
IDS = ("mem_" + "a" * 24, "mem_" + "b" * 16 + "_" + "c" * 8, "../../../../escape", "/tmp/escape", "mem_../x", 7, None)
TARGETS = ("../../outside/secret", "/etc/hostname", "manifest.parquet", "inbox", "../..", "data/manifest.parquet")
LIMITS = ArchivesConfig(min_bytes=30_000, max_ratio=3.0)


@dataclass
class Member:
    name: str
    kind: str
    target: str
    size: int
    memory_id: object
    listed: bool

    def content(self) -> bytes:
        if self.memory_id is None:
            return bytes(self.size)
        return json.dumps({"id": self.memory_id, "namespace": "fz", "text": "x", "created": "2026-01-01"}).encode()


names = st.one_of(
    st.lists(st.sampled_from(["inbox", "lance", "..", ".", "", "a b", "é", "x\\y", "mem_" + "a" * 24 + ".json",
                              "manifest.parquet", "/"]), min_size=1, max_size=4).map("/".join),
    st.text(alphabet="abc./_-\\ é", min_size=1, max_size=12),
)
members = st.builds(Member, name=names, kind=st.sampled_from(KINDS), target=st.sampled_from(TARGETS),
                    size=st.integers(0, 200_000), memory_id=st.sampled_from(IDS), listed=st.booleans())


def snapshot(root: Path, skip: Path) -> dict[str, bytes]:
    """Every path under root but `skip` and lock files, with the bytes of its files."""
    found = {}
    for path in root.rglob("*"):
        if not path.is_relative_to(skip) and not path.name.endswith(".lock"):
            found[path.relative_to(root).as_posix()] = path.read_bytes() if path.is_file() else b""
    return found


def assert_only_plain_files_inside(folder: Path) -> None:
    if not folder.exists():
        return
    for top, dirs, files in os.walk(folder, followlinks=False):
        for name in [*dirs, *files]:
            path = Path(top, name)
            assert not path.is_symlink() and path.resolve().is_relative_to(folder.resolve())
            assert path.is_dir() or (path.is_file() and path.lstat().st_nlink == 1)


def tar_info(member: Member) -> tuple[tarfile.TarInfo, bytes | None]:
    info = tarfile.TarInfo(member.name if member.name.startswith("/") else f"data/{member.name}")
    kinds = {"dir": tarfile.DIRTYPE, "symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
             "fifo": tarfile.FIFOTYPE, "device": tarfile.CHRTYPE}
    if member.kind == "file":
        data = member.content()
        info.size = len(data)
        return info, data
    info.type, info.linkname = kinds[member.kind], member.target
    return info, None


def hostile_backup(path: Path, found: list[Member]) -> None:
    files = {}
    for member in found:
        data = member.content() if member.kind == "file" else b""
        if member.listed:
            files[member.name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    index = json.dumps({"format": "mnemo-backup", "version": 1, "namespace": "fz", "files": files}).encode()
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        head = tarfile.TarInfo("backup.json")
        head.size = len(index)
        tar.addfile(head, io.BytesIO(index))
        for member in found:
            info, body = tar_info(member)
            tar.addfile(info, io.BytesIO(body) if body is not None else None)


@settings(max_examples=100, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(found=st.lists(members, min_size=1, max_size=6))
def test_restore_writes_nothing_outside_the_namespace(found: list[Member]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "outside").mkdir()
        (root / "outside" / "secret").write_text("kept")
        (root / "data").mkdir()
        hostile_backup(root / "hostile.tar.gz", found)
        before = snapshot(root, root / "data" / "fz")
        try:
            restore_namespace(root / "hostile.tar.gz", root / "data", limits=LIMITS)
        except MnemoError as exc:
            assert "\n" not in str(exc)
        assert snapshot(root, root / "data" / "fz") == before
        assert_only_plain_files_inside(root / "data" / "fz")


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real export of a small ingested vault with one titled memory."""
    root = tmp_path_factory.mktemp("fuzz")
    ws: Workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(small_vault(root / "vault"))}]})
    ws.ingest()
    steady_client(ws).save("Trip", "Zephyrine flies to Oslo.")
    export_namespace(ws.config.data_dir, "test", load_ontology(), root / "export")
    return root / "export"


def add_to_export(folder: Path, member: Member, outside: Path) -> None:
    """The member put under the export's `state/` as a file, folder, link, hard link or fifo."""
    path = folder / "state" / member.name.strip("/")
    if not path.resolve().is_relative_to((folder / "state").resolve()) or path.exists() or path.is_symlink():
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # a file of the export where a folder would go: nothing to add
        return
    if path.exists() or path.is_symlink():  # a name ending in '..' or '.' names a folder just made
        return
    if member.kind == "file":
        path.write_bytes(member.content())
    elif member.kind == "dir":
        path.mkdir()
    elif member.kind == "symlink":
        path.symlink_to(outside if member.target.startswith("..") else member.target)
    elif member.kind == "hardlink":
        os.link(outside / "secret", path)
    else:
        os.mkfifo(path)


@pytest.mark.slow  # each import builds a graph: about 10 s an example on two busy cores
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(found=st.lists(members, min_size=1, max_size=4))
def test_import_writes_nothing_outside_the_namespace(export: Path, found: list[Member]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "outside").mkdir()
        (root / "outside" / "secret").write_text("kept")
        folder = root / "export"
        shutil.copytree(export, folder)
        for member in found:
            add_to_export(folder, member, root / "outside")
        index = json.loads((folder / "export.json").read_text())
        index["files"] = file_digests(folder, "export.json")
        (folder / "export.json").write_text(json.dumps(index))
        (root / "data").mkdir()
        before = snapshot(root, root / "data" / "test")
        try:
            import_namespace(folder, root / "data", load_ontology(), limits=LIMITS)
        except MnemoError as exc:
            assert "\n" not in str(exc)
        assert snapshot(root, root / "data" / "test") == before
        assert_only_plain_files_inside(root / "data" / "test")
