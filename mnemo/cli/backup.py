"""`mnemo backup`, `restore`, `export` and `import`: moving a namespace's memory safely."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from mnemo.cli.options import ConfigOption, NamespaceOption, attempt, namespace_of

console = Console()
WaitOption = Annotated[
    float, typer.Option("--wait", min=0, help="Seconds to wait for running writers before giving up.")
]
ForceOption = Annotated[bool, typer.Option("--force", help="Replace the namespace if it already holds data.")]



def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{n / 1e3:.1f} kB"


def backup(
    dest: Annotated[Path, typer.Argument(help="Archive to write (.tar or .tar.gz), or a folder to put it in.")],
    namespace: NamespaceOption = None,
    wait: WaitOption = 60.0,
    config: ConfigOption = None,
) -> None:
    """Write a consistent archive of a namespace: graph, vectors, manifest, documents, logs."""
    from mnemo.config import load_config
    from mnemo.maintenance.backup import backup_namespace  # the stores load when the command runs

    namespace = namespace_of(namespace, config)
    root = attempt(lambda: load_config(config).data_root(namespace))
    info = attempt(lambda: backup_namespace(root, namespace, dest, wait_seconds=wait))
    console.print(
        f"backed up {info.namespace!r}: {info.files} files, {_size(info.bytes)} in {info.seconds:.2f} s -> {info.path}"
    )


def restore(
    archive: Annotated[Path, typer.Argument(help="An archive written by `mnemo backup`.")],
    force: ForceOption = False,
    wait: WaitOption = 60.0,
    config: ConfigOption = None,
) -> None:
    """Bring a namespace mnemo.yaml lists back from a backup archive (checksums, names, kinds, size checked first)."""
    from mnemo.config import load_config
    from mnemo.maintenance.backup import read_index, restore_namespace
    from mnemo.namespaces import archived_namespace

    attempt(lambda: archived_namespace(load_config(config), str(read_index(archive)["namespace"]), archive))
    settings = attempt(lambda: load_config(config))
    info = attempt(lambda: restore_namespace(archive, settings.data_dir, force=force, wait_seconds=wait,
                                             limits=settings.archives))
    console.print(f"restored {info.namespace!r}: {info.files} files, {_size(info.bytes)} in {info.seconds:.2f} s")


def export(
    dest: Annotated[Path, typer.Argument(help="A new (or empty) folder for the Parquet files.")],
    namespace: NamespaceOption = None,
    wait: WaitOption = 60.0,
    config: ConfigOption = None,
) -> None:
    """Write a namespace as portable Parquet files (graph nodes and edges, vectors, state)."""
    from mnemo.config import load_config
    from mnemo.maintenance.export import export_namespace
    from ontology import load_ontology

    namespace = namespace_of(namespace, config)
    settings = attempt(lambda: load_config(config))
    data_dir = attempt(lambda: settings.data_root(namespace))
    info = attempt(lambda: export_namespace(data_dir, namespace, load_ontology(), dest, wait_seconds=wait,
                                            engine=settings.graph.engine))
    rows = ", ".join(f"{k} {v}" for k, v in info.rows.items() if v)
    console.print(f"exported {info.namespace!r}: {_size(info.bytes)} in {info.seconds:.2f} s -> {info.path}\n{rows}")


def import_(
    folder: Annotated[Path, typer.Argument(help="A folder written by `mnemo export`.")],
    force: ForceOption = False,
    wait: WaitOption = 60.0,
    config: ConfigOption = None,
) -> None:
    """Rebuild a namespace mnemo.yaml lists (its graph and vector stores) from an export folder."""
    from mnemo.config import load_config
    from mnemo.maintenance.export import import_namespace, read_index
    from mnemo.namespaces import archived_namespace
    from ontology import load_ontology

    attempt(lambda: archived_namespace(load_config(config), str(read_index(folder)["namespace"]), folder))
    settings = attempt(lambda: load_config(config))
    info = attempt(lambda: import_namespace(folder, settings.data_dir, load_ontology(), force=force,
                                            wait_seconds=wait, limits=settings.archives,
                                            engine=settings.graph.engine))
    console.print(f"imported {info.namespace!r} from {info.path} in {info.seconds:.2f} s")


def register(app: typer.Typer) -> None:
    """Add the four commands to the `mnemo` app."""
    for command in (backup, restore, export):
        app.command()(command)
    app.command(name="import")(import_)
