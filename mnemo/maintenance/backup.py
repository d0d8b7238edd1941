"""Backup and restore of a whole namespace: graph, vectors, manifest, documents, logs.

A backup is a tar archive of the namespace folder taken while holding the namespace lock
exclusively, so no writing step runs during the copy (it waits for them, or fails with
StoreLocked after `wait_seconds`). `backup.json` inside lists every file with its size
and SHA-256; restore unpacks into a temporary folder beside the namespace, checks each
file and reads every Parquet table whole, and only then swaps it in with a rename. Only plain
files and folders with allowed names are unpacked, within a size bound (`archive_guard`).
"""

import datetime as dt
import io
import json
import os
import shutil
import tarfile
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mnemo.config import ArchivesConfig, validate_namespace
from mnemo.errors import MnemoError
from mnemo.maintenance.archive_guard import (
    DEFAULT_LIMITS,
    UnsafeArchive,
    check_inbox_files,
    check_member_name,
    check_size,
    check_written,
)
from mnemo.maintenance.export_check import ExportError, read_table, sha256_of
from mnemo.stores import durable
from mnemo.stores.locks import namespace_lock

FORMAT = "mnemo-backup"
VERSION = 1
INDEX = "backup.json"


class BackupError(MnemoError):
    """A backup cannot be taken or restored (missing, damaged, or in the way of existing data)."""


@dataclass(frozen=True)
class BackupInfo:
    path: Path
    namespace: str
    files: int
    bytes: int
    seconds: float


def _kept(path: Path) -> bool:
    """Leftover temporary files of an interrupted write are not part of the memory."""
    return not path.name.endswith(".tmp")


def archive_path(dest: Path, namespace: str) -> Path:
    """DEST itself, or `<DEST>/<namespace>-<UTC time>.tar` when DEST is a folder."""
    if dest.is_dir():
        return dest / f"{namespace}-{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%SZ}.tar"
    return dest


def backup_namespace(data_dir: Path, namespace: str, dest: Path, wait_seconds: float = 60.0) -> BackupInfo:
    """Write a consistent archive of the namespace to DEST (a .tar, .tar.gz or a folder)."""
    root = Path(data_dir) / validate_namespace(namespace)
    if not root.is_dir():
        raise BackupError(f"namespace {namespace!r} has no data in {data_dir} (nothing to back up)")
    target = archive_path(Path(dest), namespace)
    target.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with namespace_lock(root, exclusive=True, wait_seconds=wait_seconds):
        members = sorted(p for p in root.rglob("*") if p.is_file() and _kept(p))
        files: dict[str, dict[str, Any]] = {
            p.relative_to(root).as_posix(): {"bytes": p.stat().st_size, "sha256": sha256_of(p)} for p in members
        }
        index: dict[str, object] = {
            "format": FORMAT,
            "version": VERSION,
            "namespace": namespace,
            "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "files": files,
        }
        _write_tar(target, root, members, index)
    size = sum(f["bytes"] for f in files.values())
    return BackupInfo(target, namespace, len(members), size, time.perf_counter() - started)


def _write_tar(target: Path, root: Path, members: list[Path], index: dict[str, object]) -> None:
    mode: Literal["w:gz", "w"] = "w:gz" if target.name.endswith((".tar.gz", ".tgz")) else "w"
    with durable.replacing(target, "backup:archive") as tmp, tarfile.open(tmp, mode) as tar:
        data = json.dumps(index, indent=1, sort_keys=True).encode()
        info = tarfile.TarInfo(INDEX)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        for path in members:  # each a plain file, as restore accepts: never a link member
            with path.open("rb") as handle:
                info = tar.gettarinfo(arcname="data/" + path.relative_to(root).as_posix(), fileobj=handle)
                info.type, info.linkname, info.size = tarfile.REGTYPE, "", os.fstat(handle.fileno()).st_size
                tar.addfile(info, handle)


def read_index(archive: Path) -> dict[str, object]:
    """The archive's backup.json, checked to be a mnemo backup this version understands, every
    file it lists named by the closed pattern with a size and a SHA-256."""
    try:
        with tarfile.open(archive) as tar:
            member = tar.extractfile(INDEX)
            index = json.load(member) if member else None
    except (OSError, EOFError, tarfile.TarError, KeyError, ValueError, zlib.error) as exc:
        raise BackupError(f"{archive}: not a readable mnemo backup ({exc})") from None
    if not isinstance(index, dict) or index.get("format") != FORMAT or index.get("version") != VERSION:
        raise BackupError(f"{archive}: not a mnemo backup of version {VERSION}")
    validate_namespace(str(index.get("namespace")))
    listed = index.get("files")
    if not isinstance(listed, dict):
        raise BackupError(f"{archive}: {INDEX} has no readable list of files")
    for name, meta in listed.items():
        check_member_name(name)
        if not _file_entry(meta):
            raise BackupError(f"{archive}: {INDEX} lists {name!r} without a size and a SHA-256")
    return index


def _file_entry(meta: object) -> bool:
    return (isinstance(meta, dict) and type(meta.get("bytes")) is int and meta["bytes"] >= 0
            and isinstance(meta.get("sha256"), str) and len(meta["sha256"]) == 64)


def _data_members(archive: Path, tar: tarfile.TarFile, limits: ArchivesConfig) -> list[tarfile.TarInfo]:
    """The archive's data members, each a plain file or folder with an allowed name, listed once,
    their total size within `limits` (checked from the headers, before anything is unpacked)."""
    members, seen, total = [], set(), 0
    for member in tar.getmembers():
        if member.name == INDEX:
            continue
        rel = member.name.removeprefix("data/")
        if not member.name.startswith("data/") or rel in seen:
            raise UnsafeArchive(member.name, "not a data file of the backup, or listed twice")
        check_member_name(rel)
        if not (member.isreg() or member.isdir()):
            raise UnsafeArchive(member.name, "a link, device or fifo, not a plain file")
        seen.add(rel)
        members.append(member)
        total += member.size if member.isreg() else 0
    check_size(total, archive.stat().st_size, limits, archive)
    return members


def _unpack(archive: Path, index: dict[str, object], folder: Path, limits: ArchivesConfig) -> None:
    """Extract the data files into `folder`, refusing anything unlisted, unsafe or damaged."""
    listed: dict[str, dict[str, object]] = index["files"]  # type: ignore[assignment]
    try:
        with tarfile.open(archive) as tar:
            members = _data_members(archive, tar, limits)
            names = {m.name.removeprefix("data/") for m in members if m.isreg()}
            if names != set(listed):
                raise BackupError(
                    f"{archive}: its files do not match its index (missing or extra: {sorted(names ^ set(listed))[:5]})"
                )
            tar.extractall(folder, members=members, filter="data")
    except (OSError, EOFError, tarfile.TarError, zlib.error) as exc:
        raise BackupError(f"{archive}: not a readable mnemo backup ({exc}); nothing was restored") from None
    check_written(folder / "data")
    for rel, meta in listed.items():
        path = folder / "data" / rel
        if path.stat().st_size != meta["bytes"] or sha256_of(path) != meta["sha256"]:
            raise BackupError(f"{archive}: {rel} is damaged (checksum mismatch); nothing was restored")
    check_inbox_files(folder / "data", "data/")
    _check_tables(archive, folder / "data")


def _check_tables(archive: Path, data: Path) -> None:
    """Every Parquet file read to its last row: checksums recomputed over a damaged file match."""
    for path in sorted(data.rglob("*.parquet")):
        try:
            read_table(path)
        except ExportError:
            rel = path.relative_to(data)
            raise BackupError(f"{archive}: {rel} is not a readable Parquet file; nothing was restored") from None


def restore_namespace(archive: Path, data_dir: Path, force: bool = False, wait_seconds: float = 60.0,
                      limits: ArchivesConfig = DEFAULT_LIMITS) -> BackupInfo:
    """Bring a namespace back from a backup; an existing namespace is replaced only with force."""
    archive = Path(archive)
    index = read_index(archive)
    namespace = str(index["namespace"])
    root = Path(data_dir) / namespace
    started = time.perf_counter()
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=root.parent, prefix=f".{namespace}.restore."))
    try:
        _unpack(archive, index, staging, limits)
        with namespace_lock(root, exclusive=True, wait_seconds=wait_seconds):
            if root.exists() and any(root.iterdir()) and not force:
                raise BackupError(f"namespace {namespace!r} already has data in {data_dir}; pass --force to replace it")
            if root.exists():
                os.replace(root, staging / "replaced")
            os.replace(staging / "data", root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    listed: dict[str, dict[str, int]] = index["files"]  # type: ignore[assignment]
    return BackupInfo(
        archive, namespace, len(listed), sum(f["bytes"] for f in listed.values()), time.perf_counter() - started
    )
