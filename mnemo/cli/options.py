"""What every `mnemo` command shares: the --config, --namespace and --json options, and how one fails."""

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.errors import MnemoError

ConfigOption = Annotated[
    Path | None, typer.Option("--config", "-c", help="Config file (default: $MNEMO_CONFIG or ./mnemo.yaml).")
]
NamespaceOption = Annotated[
    str | None,
    typer.Option(
        "--namespace", "-n",
        help="Whose memory to use, one mnemo.yaml lists (default: its default_namespace, or its only namespace).",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for machines.")]


def fail(message: str) -> NoReturn:
    """Print the error on stderr and exit with status 2."""
    Console(stderr=True).print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code=2)


def refuse_undecodable_arguments() -> None:
    """Fail (exit 2) when a command-line argument is not UTF-8 text (Python holds such bytes as
    lone surrogates, which no file, store or answer can take)."""
    for position, argument in enumerate(sys.argv[1:], 1):
        bad = next((c for c in argument if "\ud800" <= c <= "\udfff"), None)
        if bad is not None:
            shown = argument.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
            fail(f"argument {position} ('{shown}') is not valid UTF-8 text: mnemo takes UTF-8 arguments")


T = TypeVar("T")


def attempt(call: Callable[[], T]) -> T:
    """What the call returns; a MnemoError ends the command with its message (exit status 2)."""
    try:
        return call()
    except MnemoError as exc:
        fail(str(exc))


def namespace_of(namespace: str | None, config: Path | None) -> str:
    """The namespace a command works on: the one named, when the configuration lists it, else the
    configuration's default."""
    from mnemo.config import load_config  # pydantic and yaml load when a command runs, not with --help
    from mnemo.namespaces import configured_namespace

    try:
        settings = load_config(config)
        return settings.default_namespace_name() if namespace is None else configured_namespace(settings, namespace)
    except MnemoError as exc:
        fail(str(exc))


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=1, default=str)
    sys.stdout.write("\n")
