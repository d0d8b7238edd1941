"""Moving a namespace to another shard: a backup on its shard, a restore on the target, its API
keys moved, then its `placement:` entry written into mnemo.yaml, so every later run and request
for it goes to the target. The source folder is removed; its archive stays in `<root>/.moved/`.
"""

import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from mnemo.config import MnemoConfig, parse_config, validate_namespace
from mnemo.errors import ConfigError
from mnemo.maintenance.backup import backup_namespace, restore_namespace
from mnemo.stores.locks import namespace_lock

MOVED = ".moved"


@dataclass(frozen=True)
class MoveInfo:
    namespace: str
    source: str
    target: str
    archive: Path | None  # None when the namespace had no data yet
    keys: int
    seconds: float


def _shards(config: MnemoConfig, namespace: str, target: str) -> str:
    """The namespace's shard now, after checking the move makes sense."""
    if not config.shards:
        raise ConfigError(f"{config.path}: no shards: are configured; there is nothing to move between")
    if target not in config.shards:
        raise ConfigError(f"{config.path}: no shard {target!r} (shards: {', '.join(sorted(config.shards))})")
    source = str(config.shard_of(validate_namespace(namespace)))
    if source == target:
        raise ConfigError(f"namespace {namespace!r} is already on shard {target!r}")
    return source


def move_namespace(config: MnemoConfig, namespace: str, target: str, move_keys: Callable[[Path, Path], int],
                   wait_seconds: float = 60.0) -> MoveInfo:
    """Move `namespace` with its data from its shard to `target` and place it there; `move_keys(old
    data root, new data root)` moves its API keys before it is placed (returns how many)."""
    source = _shards(config, namespace, target)
    started = time.perf_counter()
    src, dst = config.shards[source].data_dir, config.shards[target].data_dir
    archive = None
    if (src / namespace).exists():
        (src / MOVED).mkdir(parents=True, exist_ok=True)
        archive = backup_namespace(src, namespace, src / MOVED, wait_seconds=wait_seconds).path
        restore_namespace(archive, dst, wait_seconds=wait_seconds)
    keys = move_keys(src, dst)
    set_placement(Path(str(config.path)), namespace, target)
    if archive is not None:
        with namespace_lock(src / namespace, exclusive=True, wait_seconds=wait_seconds):
            shutil.rmtree(src / namespace)
    return MoveInfo(namespace, source, target, archive, keys, time.perf_counter() - started)


_PLACEMENT = re.compile(r"^placement:[ \t]*(\{\s*\})?[ \t]*(#.*)?$")


def placed_text(text: str, namespace: str, shard: str) -> str:
    """The config file's text with `namespace: shard` under its top-level `placement:` (added when
    missing); every other line, comments included, is kept as it was."""
    lines = text.splitlines()
    entry = f"  {namespace}: {shard}"
    at = next((i for i, line in enumerate(lines) if _PLACEMENT.match(line)), None)
    if at is None:
        return "\n".join([*lines, "placement:", entry]) + "\n"
    lines[at] = "placement:"
    end = at + 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
        end += 1
    own = re.compile(rf"^\s+{re.escape(namespace)}\s*:")
    kept = [line for line in lines[at + 1:end] if not own.match(line)]
    return "\n".join([*lines[: at + 1], entry, *kept, *lines[end:]]) + "\n"


def set_placement(path: Path, namespace: str, shard: str) -> None:
    """Write `namespace: shard` into the file's `placement:`, atomically, after checking the new
    file reads back as a valid configuration placing the namespace there."""
    text = path.read_text(encoding="utf-8")
    new = placed_text(text, namespace, shard)
    if parse_config(yaml.safe_load(new), path).shard_of(namespace) != shard:
        raise ConfigError(f"{path}: could not place {namespace!r} on {shard!r} (is `placement:` written "
                          "in flow style?); add it by hand")
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(new)
    os.chmod(temp, path.stat().st_mode & 0o777)
    os.replace(temp, path)
