"""Which namespaces exist: exactly those `mnemo.yaml` lists. A name it does not list is refused
before anything is read or created (a typo must not start a second, empty memory), and a
configured namespace with nothing in it yet says how to fill it."""

from collections.abc import Callable
from pathlib import Path

from mnemo.config import MnemoConfig, validate_namespace
from mnemo.errors import NotIngested, UnknownNamespace

CLOSE_ENOUGH = 60.0  # rapidfuzz's ratio (0-100) above which a configured name is offered as the one meant


def closest(name: str, names: list[str]) -> str | None:
    """The configured name most like `name`, when one is alike enough to be the one meant."""
    from rapidfuzz import fuzz, process  # only a refusal needs it

    found = process.extractOne(name, names, scorer=fuzz.ratio, score_cutoff=CLOSE_ENOUGH)
    return None if found is None else str(found[0])


def unknown_message(config: MnemoConfig, name: str) -> str:
    """One line naming the unknown namespace, the file, the configured ones and the closest match."""
    names = sorted(config.namespaces)
    where = config.path or "the configuration"
    if not names:
        return f"namespace {name!r} is not configured: {where} lists none (add your notes with `mnemo init PATH`)"
    guess = closest(name, names)
    hint = f"did you mean {guess!r}?" if guess else f"to add it: `mnemo init PATH --name {name}`"
    return f"namespace {name!r} is not in {where} (configured: {', '.join(names)}): {hint}"


def configured_namespace(config: MnemoConfig, name: str) -> str:
    """`name`, when the configuration lists it; else UnknownNamespace (an invalid name: ConfigError)."""
    validate_namespace(name)
    if name not in config.namespaces:
        raise UnknownNamespace(unknown_message(config, name), name)
    return name


def archived_namespace(config: MnemoConfig, name: str, archive: Path) -> str:
    """The namespace an archive (a backup or an export) holds, when the configuration lists it;
    else UnknownNamespace naming the archive and the file, before anything is unpacked or created."""
    validate_namespace(name)
    if name in config.namespaces:
        return name
    where = config.path or "the configuration"
    listed = f"configured: {', '.join(sorted(config.namespaces))}" if config.namespaces else "it lists none"
    raise UnknownNamespace(f"{archive}: holds namespace {name!r}, which {where} does not list ({listed}): add it "
                           f"(`mnemo init PATH --name {name}`) before bringing it back; nothing was changed", name)


def check_ingested(root: Path, namespace: str, passages: Callable[[], int]) -> None:
    """Nothing when the namespace (its folder `root`) has been ingested or holds passages (counted
    only when no ingest has run); else NotIngested."""
    if not (root / "manifest.parquet").exists() and passages() == 0:
        raise NotIngested(f"namespace {namespace!r} holds nothing yet (nothing ingested, nothing remembered): "
                          "run `mnemo ingest`")
