"""File-drop watching: what the sensor needs, with no Dagster in it.

A namespace's watched files are those its sources' scan reads (a Logseq graph's pages and
journals, an Obsidian vault's notes: not attachments, not the tools' own folders). A snapshot maps
each file's path to (mtime_ns, size, digest); the digest is computed only when mtime or size
changed since the last snapshot. The snapshot is kept in a file of the namespace's folder
(`SNAPSHOT_FILE`); the sensor's cursor holds only its digest and the debounce state.
The fingerprint hashes (path, digest) pairs, so touching
a file without changing it requests nothing (nor does a write-back that only changed a
note's mnemo lines), while an edit, a new file, a deletion or a rename does. Editor temp files
and tool folders are ignored.

Debounce: a changed fingerprint is first only noted as pending; a run is requested once
the same fingerprint has been seen for `settle_seconds` (an editor saving fifty times
keeps changing it, and yields one run when it stops).

A namespace's first look compares its files with what its last ingest read (the manifest): a
note written or deleted while nothing was watching (before `mnemo up`, or in the moments after)
is a change, and is ingested once it has settled, rather than becoming the starting point.
"""

import hashlib
import json
import os
from collections.abc import Callable, Collection, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mnemo.config import MnemoConfig, SourceConfig
from mnemo.documents import ManifestEntry
from mnemo.sources.ignore import is_ignored
from mnemo.sources.scan import GENERATED, PreparedSource, file_fingerprint, prepare_source
from mnemo.sources.walk import walk_files
from mnemo.stores.durable import write_text

CURSOR_VERSION = 2
SNAPSHOT_FILE = "watched_files.json"  # in the namespace's folder
_READ_BLOCK = 1024 * 1024


@dataclass
class NamespaceWatch:
    """What the cursor keeps per namespace."""

    files: dict[str, list[Any]] = field(default_factory=dict)
    requested: str = ""
    pending: str = ""
    pending_since: float = 0.0
    requests: int = 0


@dataclass(frozen=True)
class Changes:
    new: list[str]
    changed: list[str]
    deleted: list[str]
    renamed: list[tuple[str, str]]

    @property
    def summary(self) -> str:
        parts = [
            f"{len(v)} {k}"
            for k, v in (
                ("new", self.new),
                ("changed", self.changed),
                ("deleted", self.deleted),
                ("renamed", self.renamed),
            )
            if v
        ]
        return ", ".join(parts) or "no file changes"


@dataclass(frozen=True)
class RunWanted:
    namespace: str
    run_key: str
    fingerprint: str
    changes: Changes


@dataclass
class WatchResult:
    runs: list[RunWanted] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    cursor: str = ""


def _digest(path: Path, key: str) -> str:
    """The content digest; a note's write-back lines (the mnemo key) do not count."""
    if path.suffix.lower() == ".md":
        return file_fingerprint(path.read_bytes(), "logseq", key)
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()[:24]


def _files_below(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if not is_ignored(path.relative_to(root).as_posix()) and not path.is_symlink() and path.is_file():
                found.append(path)
    return found


def snapshot(roots: list[Path], previous: dict[str, list[Any]], key: str = "mnemo") -> dict[str, list[Any]]:
    """path -> [mtime_ns, size, digest] for every watched file (digests reused when unchanged)."""
    current: dict[str, list[Any]] = {}
    for root in roots:
        for path in _files_below(root) if root.exists() else []:
            try:
                stat = path.stat()
                old = previous.get(str(path))
                if old and old[0] == stat.st_mtime_ns and old[1] == stat.st_size:
                    current[str(path)] = old
                else:
                    current[str(path)] = [stat.st_mtime_ns, stat.st_size, _digest(path, key)]
            except OSError:
                continue  # vanished or unreadable between listing and reading: next evaluation sees it
    return current


def fingerprint(files: dict[str, list[Any]]) -> str:
    """A digest of (path, content digest) pairs: mtimes alone do not change it."""
    return hashlib.sha256(json.dumps(sorted((p, s[2]) for p, s in files.items())).encode()).hexdigest()[:16]


def diff(old: dict[str, list[Any]], new: dict[str, list[Any]]) -> Changes:
    """New, changed, deleted and renamed (same bytes, new path) files between two snapshots."""
    gone = {p: s for p, s in old.items() if p not in new}
    added = {p: s for p, s in new.items() if p not in old}
    by_digest = {s[2]: p for p, s in gone.items()}
    renamed = [(by_digest.pop(s[2]), p) for p, s in sorted(added.items()) if s[2] in by_digest]
    moved_to = {b for _, b in renamed}
    return Changes(
        new=sorted(p for p in added if p not in moved_to),
        changed=sorted(p for p, s in new.items() if p in old and old[p][2] != s[2]),
        deleted=sorted(by_digest.values()),
        renamed=renamed,
    )


def watched_paths(config: MnemoConfig, namespace: str) -> list[Path]:
    """Every file the namespace's sources' scan reads (editor temp files aside)."""
    return [Path(path) for source in config.namespace(namespace).sources for path in _read_by(source)]


def _read_by(source: SourceConfig) -> Iterator[str]:
    prepared = prepare_source(source)
    if isinstance(prepared, PreparedSource):
        for relative, path, _ in walk_files(source.path, prepared.suffixes, prepared.excludes, []):
            if not is_ignored(relative):
                yield path


@dataclass(frozen=True)
class Snapshots:
    """Each namespace's last snapshot, in a file of its folder (`folder(namespace)`)."""

    folder: Callable[[str], Path]

    def load(self, namespace: str, digest: str) -> dict[str, list[Any]]:
        """The snapshot the cursor's `digest` names; empty when the file is gone or is another's."""
        try:
            files = json.loads((self.folder(namespace) / SNAPSHOT_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return files if isinstance(files, dict) and fingerprint(files) == digest else {}

    def save(self, namespace: str, files: dict[str, list[Any]]) -> None:
        write_text(self.folder(namespace) / SNAPSHOT_FILE, json.dumps(files, sort_keys=True), "watch.snapshot")


def load_cursor(text: str | None) -> dict[str, tuple[NamespaceWatch, str]]:
    """The cursor's per-namespace state (its files still to be loaded) and its snapshot's digest;
    an unreadable or old cursor starts afresh."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    if not isinstance(data, dict) or data.get("version") != CURSOR_VERSION:
        return {}
    found = {}
    for ns, state in data.get("namespaces", {}).items():
        digest = state.pop("files")
        state.pop("watched", None)
        found[ns] = NamespaceWatch(**state), digest
    return found


def dump_cursor(states: dict[str, NamespaceWatch]) -> str:
    """The debounce state per namespace, its snapshot by digest and size only (the files are in
    the namespace's `SNAPSHOT_FILE`)."""
    kept = {ns: {**asdict(s), "files": fingerprint(s.files), "watched": len(s.files)}
            for ns, s in sorted(states.items())}
    return json.dumps({"version": CURSOR_VERSION, "namespaces": kept}, sort_keys=True)


def step(
    state: NamespaceWatch | None, files: dict[str, list[Any]], now: float, settle_seconds: float
) -> tuple[NamespaceWatch, bool]:
    """Advance one namespace's state; True when a run should be requested now."""
    current = fingerprint(files)
    if state is None:
        return NamespaceWatch(files, requested=current), False
    if current == state.requested:
        return NamespaceWatch(files, requested=current, requests=state.requests), False
    if current != state.pending:
        state = NamespaceWatch(state.files, state.requested, current, now, state.requests)
        if settle_seconds > 0:
            return state, False
    if now - state.pending_since >= settle_seconds:
        return NamespaceWatch(files, requested=current, requests=state.requests + 1), True
    return state, False


Ingested = Callable[[str], list[ManifestEntry]]


def _readable(source: SourceConfig) -> dict[str, int]:
    """path -> mtime_ns of every file the scan of this source would read."""
    prepared = prepare_source(source)
    if not isinstance(prepared, PreparedSource):
        return {}
    found = walk_files(source.path, prepared.suffixes, prepared.excludes, [])
    return {path: stat.st_mtime_ns for _, path, stat in found}


def since_ingest(config: MnemoConfig, namespace: str, files: dict[str, list[Any]],
                 ingested: list[ManifestEntry], refused: Collection[str] = ()) -> NamespaceWatch | None:
    """A first look's state when the files differ from what the last ingest read: the files as
    that ingest saw them, with the change pending since the newest changed file's time (so a
    change that has already settled is ingested at once). None when nothing changed, or when
    the namespace was never ingested (its first ingest is the namespaces sensor's). `refused`:
    the paths (in their source) the last ingest read and skipped, such as empty pages; they
    are no change."""
    if not ingested:
        return None
    sources = {s.label: s for s in config.namespace(namespace).sources}
    skipped = {str(s.path / path) for s in sources.values() if not s.path.is_file() for path in refused}
    seen: dict[str, ManifestEntry] = {}
    for entry in ingested:
        if entry.source in sources:
            root = sources[entry.source].path
            seen[str(root if root.is_file() else root / entry.path)] = entry
    readable = {p: t for s in sources.values() for p, t in _readable(s).items()}
    baseline = {p: state for p, state in files.items() if p not in readable or p in seen or p in skipped}
    unread = [p for p in readable if p in files and p not in seen and p not in skipped and files[p][2] != GENERATED]
    for path, entry in seen.items():
        if path not in files or files[path][:2] != [entry.mtime_ns, entry.size]:
            baseline[path] = [entry.mtime_ns, entry.size, f"ingested:{entry.file_hash}"]
            unread.append(path)
    if not unread:
        return None
    newest = max((readable.get(p, 0) for p in unread), default=0) / 1e9
    return NamespaceWatch(baseline, requested=fingerprint(baseline), pending=fingerprint(files), pending_since=newest)


def watch(config: MnemoConfig, cursor: str | None, partitions: set[str], now: float, snapshots: Snapshots,
          ingested: Ingested | None = None, refused: Callable[[str], set[str]] | None = None) -> WatchResult:
    """One evaluation over every configured namespace that already has a partition. With
    `ingested` (namespace -> its manifest), a namespace's first look starts from what its last
    ingest read (see `since_ingest`, with the files it skipped from `refused`); without it, from the
    files as they are."""
    states: dict[str, NamespaceWatch] = {}
    result = WatchResult()
    for namespace, (kept, digest) in load_cursor(cursor).items():
        kept.files = snapshots.load(namespace, digest)
        states[namespace] = kept
    for namespace in sorted(config.namespaces):
        if namespace not in partitions:
            continue
        old = states.get(namespace)
        loaded = old.files if old else None
        files = snapshot(watched_paths(config, namespace), loaded or {}, config.writeback.key)
        if old is None and ingested is not None:
            old = since_ingest(config, namespace, files, ingested(namespace), refused(namespace) if refused else set())
        state, run = step(old, files, now, config.watch.settle_seconds)
        states[namespace] = state
        if state.files != loaded:
            snapshots.save(namespace, state.files)
        if run and old is not None:
            # The sequence number keeps a return to an earlier state (an undone edit) from
            # reusing that state's run key, which Dagster would skip.
            run_key = f"file-drop-{namespace}-{state.requests}-{state.requested}"
            result.runs.append(RunWanted(namespace, run_key, state.requested, diff(old.files, files)))
        elif state.pending and state.pending != state.requested:
            result.waiting.append(namespace)
    result.cursor = dump_cursor({ns: s for ns, s in states.items() if ns in config.namespaces})
    return result
