"""`mnemo shard list` and `mnemo shard move`: where namespaces live when memory is sharded."""

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from mnemo.cli.options import ConfigOption, JsonOption, attempt, fail, print_json

if TYPE_CHECKING:  # the configuration loads when a command runs, not with --help
    from mnemo.config import MnemoConfig

console = Console()
shard_app = typer.Typer(help="Shards: which machine's data root holds each namespace (docs/DEPLOY.md).",
                        no_args_is_help=True)


def _rows(config: "MnemoConfig") -> list[dict[str, Any]]:
    found = {p.name for shard in config.shards.values() if shard.data_dir.is_dir()
             for p in shard.data_dir.iterdir() if p.is_dir() and not p.name.startswith(".")}
    rows = []
    for ns in sorted(set(config.namespaces) | set(config.placement) | found):
        shard = str(config.shard_of(ns))
        root: Path = config.shards[shard].data_dir
        strays = sorted(s for s, c in config.shards.items() if s != shard and (c.data_dir / ns).is_dir())
        rows.append({"namespace": ns, "shard": shard, "queue": config.queue_of(ns),
                     "placed": ns in config.placement, "data": (root / ns).is_dir(), "also_on": strays})
    return rows


@shard_app.command("list")
def shard_list(config: ConfigOption = None, as_json: JsonOption = False) -> None:
    """Each namespace's shard and queue, whether `placement:` or the hash put it there, and any
    copy found on another shard's data root."""
    from mnemo.config import load_config

    settings = attempt(lambda: load_config(config))
    if not settings.shards:
        fail(f"{settings.path}: no shards: configured (one data_dir holds every namespace)")
    rows = _rows(settings)
    if as_json:
        print_json(rows)
        return
    table = Table(title="namespaces by shard")
    for column in ("namespace", "shard", "queue", "by", "data here", "also on"):
        table.add_column(column)
    for r in rows:
        table.add_row(r["namespace"], r["shard"], r["queue"], "placement" if r["placed"] else "hash",
                      "yes" if r["data"] else "no", ", ".join(r["also_on"]))
    console.print(table)


def _move_keys(namespace: str, old: Path, new: Path) -> int:
    from mnemo.serve.api_keys import KeyStore

    return KeyStore(old).move_to(KeyStore(new), namespace)


@shard_app.command("move")
def shard_move(
    namespace: Annotated[str, typer.Argument(help="The namespace to move.")],
    shard: Annotated[str, typer.Argument(help="The shard to move it to.")],
    wait: Annotated[float, typer.Option("--wait", min=0, help="Seconds to wait for running writers.")] = 60.0,
    config: ConfigOption = None,
) -> None:
    """Move a namespace to another shard: back it up on its shard, restore it on SHARD, move its
    API keys, write `placement:` in the config file, remove the old folder (its archive is kept)."""
    from mnemo.config import load_config
    from mnemo.maintenance.shard_move import move_namespace  # the stores load when a move runs

    settings = attempt(lambda: load_config(config))
    info = attempt(lambda: move_namespace(settings, namespace, shard, partial(_move_keys, namespace), wait))
    kept = f"; archive kept at {info.archive}" if info.archive else " (it had no data yet)"
    console.print(f"moved {info.namespace!r} from shard {info.source!r} to {info.target!r} in {info.seconds:.2f} s, "
                  f"{info.keys} API key(s) with it{kept}")


def register(app: typer.Typer) -> None:
    """Add `shard` and its subcommands to the `mnemo` app."""
    app.add_typer(shard_app, name="shard")
