"""Writing sources into `mnemo.yaml` the way a person would: other namespaces, the order of the
settings and every comment stay as they were (ruamel.yaml's round trip)."""

import io
import os
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import YAMLError

from mnemo.config import SourceConfig, load_config, validate_namespace
from mnemo.errors import ConfigError

NEW_FILE = """\
# mnemo's configuration: where memory lives, whose memory it is, and what it reads.
# Relative paths are relative to this file. Override the file with $MNEMO_CONFIG.
data_dir: .mnemo
"""


@dataclass(frozen=True)
class Written:
    """What `add_sources` changed in the file."""

    path: Path
    created: bool
    added: list[SourceConfig]
    already: list[SourceConfig]
    default_namespace: str


def _yaml() -> YAML:
    yaml = YAML()  # round-trip: comments, key order and quoting are kept
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _load(path: Path) -> tuple[CommentedMap, bool]:
    text = path.read_text(encoding="utf-8") if path.exists() else NEW_FILE
    try:
        doc = _yaml().load(text)
    except YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from None
    if doc is None:
        doc = CommentedMap()
    if not isinstance(doc, CommentedMap):
        raise ConfigError(f"{path}: the top level must be a mapping of settings")
    return doc, not path.exists()


def _same(entry: object, source: SourceConfig, base: Path) -> bool:
    if not isinstance(entry, dict):
        return False
    path = Path(str(entry.get("path", ""))).expanduser()
    return entry.get("kind") == source.kind and (base / path).resolve() == source.path.resolve()


def _namespace_entry(doc: CommentedMap, path: Path, name: str) -> CommentedMap:
    namespaces = doc.setdefault("namespaces", CommentedMap())
    if not isinstance(namespaces, dict):
        raise ConfigError(f"{path}: namespaces must be a mapping")
    entry = namespaces.setdefault(name, CommentedMap())
    if entry is None:
        entry = namespaces[name] = CommentedMap()
    entry.setdefault("sources", CommentedSeq())
    if entry["sources"] is None:
        entry["sources"] = CommentedSeq()
    return entry


def _choose_default(doc: CommentedMap, name: str) -> str:
    """The namespace `name` becomes the default unless another one already is."""
    current = doc.get("default_namespace")
    if current and current in doc["namespaces"]:
        return str(current)
    if "default_namespace" in doc:
        doc["default_namespace"] = name
    else:
        doc.insert(list(doc).index("namespaces"), "default_namespace", name)
    return name


def add_sources(path: Path, name: str, sources: list[SourceConfig], self_name: str | None) -> Written:
    """Add `sources` to namespace `name` of the config file at `path` (created when missing);
    the result is checked by the same loader every command uses before it replaces the file."""
    validate_namespace(name)
    doc, created = _load(path)
    entry = _namespace_entry(doc, path, name)
    added = [s for s in sources if not any(_same(e, s, path.parent) for e in entry["sources"])]
    for source in added:
        entry["sources"].append(CommentedMap(kind=source.kind, path=str(source.path.resolve())))
    if self_name and "self" in entry:
        entry["self"] = self_name
    elif self_name:
        entry.insert(0, "self", self_name)
    default = _choose_default(doc, name)
    _replace(path, doc)
    return Written(path, created, added, [s for s in sources if s not in added], default)


def _replace(path: Path, doc: CommentedMap) -> None:
    buffer = io.StringIO()
    _yaml().dump(doc, buffer)
    staged = path.with_name(f".{path.name}.init-{os.getpid()}")
    staged.write_text(buffer.getvalue(), encoding="utf-8")
    try:
        load_config(staged)
    except ConfigError:
        staged.unlink()
        raise
    os.replace(staged, path)

