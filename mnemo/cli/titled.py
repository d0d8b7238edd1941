"""The memory commands by title and by scope: save, read, exists, append, list and get-memory.

A room (`get_memory(id, room)`, `get_all(room)`, `clear(room)` in the Python client) is a scope:
`mnemo get-memory ID --scope ROOM`, `mnemo list --scope ROOM`, `mnemo forget --scope ROOM`.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.memory import seconds
from mnemo.cli.options import ConfigOption, JsonOption, NamespaceOption, attempt, namespace_of, print_json
from mnemo.cli.tables import fitting_table

if TYPE_CHECKING:
    from mnemo.client import MemoryClient
    from mnemo.sources.memory_files import Memory

console = Console()
Title = Annotated[str, typer.Argument(help="The memory's title (unique, by its slug, within the scope).")]
Scope = Annotated[str, typer.Option("--scope", help="global, project:<name> or session:<id> (a room).")]
Ttl = Annotated[str | None, typer.Option("--ttl", help="Forget it after this long: seconds, or 90s, 30m, 12h, 7d.")]
ExpiresAt = Annotated[
    str | None, typer.Option("--expires-at", help="Forget it at this ISO time (UTC when it has no zone).")
]


def _client(namespace: str | None, config: Path | None) -> "MemoryClient":
    from mnemo.client import MemoryClient  # the stores load with the client, not with --help

    return attempt(lambda: MemoryClient(namespace_of(namespace, config), config))


def _ttl(ttl: str | None) -> float | None:
    return None if ttl is None else attempt(lambda: seconds(ttl))


def describe(memory: "Memory") -> str:
    """One line about a memory: id, title, scope, status and expiry."""
    title = f" [bold]{escape(memory.title)}[/]" if memory.title else ""
    expiry = f", expires {memory.expires_at}" if memory.expires_at else ""
    return f"{memory.id}{title} ({memory.scope}, {memory.status}{expiry})"


def _show(memory: "Memory", as_json: bool, verb: str = "") -> None:
    if as_json:
        print_json(memory.to_dict())
        return
    console.print(f"{verb}{describe(memory)}")
    if not verb:
        console.print(escape(memory.text), highlight=False)


def save(title: Title, text: Annotated[str, typer.Argument(help="The memory's text.")],
         namespace: NamespaceOption = None, scope: Scope = "global", ttl: Ttl = None, expires_at: ExpiresAt = None,
         as_json: JsonOption = False, config: ConfigOption = None) -> None:
    """Save TEXT under TITLE: a new memory, or that title's text replaced (the old text kept in its history)."""
    client, seconds = _client(namespace, config), _ttl(ttl)
    _show(attempt(lambda: client.save(title, text, scope, expires_at=expires_at, ttl=seconds)), as_json, "saved ")


def read(title: Title, namespace: NamespaceOption = None, scope: Scope = "global",
         as_json: JsonOption = False, config: ConfigOption = None) -> None:
    """Show the memory saved under TITLE in the scope, with its history in --json."""
    client = _client(namespace, config)
    _show(attempt(lambda: client.read(title, scope)), as_json)


def exists(title: Title, namespace: NamespaceOption = None, scope: Scope = "global",
           as_json: JsonOption = False, config: ConfigOption = None) -> None:
    """Whether a memory is saved under TITLE in the scope: exit status 0 if so, 1 if not."""
    client = _client(namespace, config)
    found = attempt(lambda: client.exists(title, scope))
    if as_json:
        print_json({"title": title, "scope": scope, "exists": found})
    else:
        console.print("yes" if found else "no")
    raise typer.Exit(code=0 if found else 1)


def append(title: Title, text: Annotated[str, typer.Argument(help="The text to add at the end.")],
           namespace: NamespaceOption = None, scope: Scope = "global",
           as_json: JsonOption = False, config: ConfigOption = None) -> None:
    """Add TEXT to the end of the memory saved under TITLE (the text before is kept in its history)."""
    client = _client(namespace, config)
    _show(attempt(lambda: client.append(title, text, scope)), as_json, "appended to ")


def list_memories(
    namespace: NamespaceOption = None,
    scope: Annotated[str | None, typer.Option("--scope", help="Only the memories of this scope (a room).")] = None,
    as_json: JsonOption = False, config: ConfigOption = None,
) -> None:
    """List the remembered and saved memories (of one scope), oldest first, with scope, status and expiry."""
    client = _client(namespace, config)
    found = attempt(lambda: client.list(scope))
    if as_json:
        print_json([m.to_dict() for m in found])
        return
    rows = [[m.id, m.title or "", m.scope, m.status, m.expires_at or "", escape(m.text[:120])] for m in found]
    columns = ["id", "title", "scope", "status", "expires", "text"]
    console.print(fitting_table(f"memories{f' of {scope}' if scope else ''}", columns, rows,
                                whole=("id", "scope", "status")))


def get_memory(memory_id: Annotated[str, typer.Argument(help="A memory id.")], namespace: NamespaceOption = None,
               scope: Annotated[str | None, typer.Option("--scope", help="Only if it is in this scope (room).")] = None,
               as_json: JsonOption = False, config: ConfigOption = None) -> None:
    """Show a memory by id with its status (processing, recallable, ingested or expired)."""
    client = _client(namespace, config)
    _show(attempt(lambda: client.get_memory(memory_id, scope)), as_json)


def register(app: typer.Typer) -> None:
    """Add the titled-memory and room commands to the `mnemo` app."""
    for command in (save, read, exists, append, get_memory):
        app.command()(command)
    app.command(name="list")(list_memories)
