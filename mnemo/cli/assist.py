"""The commands that serve assistants and apps: `mnemo mcp`, `mnemo serve`, `mnemo keys`."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from mnemo.cli.options import ConfigOption, JsonOption, NamespaceOption, fail, namespace_of, print_json
from mnemo.cli.tables import fitting_table
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # the configuration and the key store load when a command runs, not with --help
    from mnemo.serve.api_keys import KeyStore

console = Console()
keys_app = typer.Typer(help="API keys for `mnemo serve`: one namespace each, stored hashed.", no_args_is_help=True)


def mcp(namespace: NamespaceOption = None, config: ConfigOption = None,
        transport: Annotated[str, typer.Option(help="stdio, or streamable-http.")] = "stdio",
        host: Annotated[str, typer.Option(help="Address for streamable-http (keep it loopback).")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port for streamable-http; the endpoint is /mcp.")] = 8766) -> None:
    """Serve one namespace's memory to an MCP-capable assistant (stdio by default)."""
    namespace = namespace_of(namespace, config)
    from mnemo.serve.mcp import run

    if transport not in ("stdio", "streamable-http"):
        fail(f"unknown transport {transport!r}: use stdio or streamable-http")
    try:
        run(namespace, config, transport, host, port)
    except MnemoError as exc:
        fail(str(exc))


def serve(config: ConfigOption = None, host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
          port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
          max_body: Annotated[int, typer.Option(help="Largest request body in bytes.")] = 64 * 1024) -> None:
    """Serve the HTTP API (keys from `mnemo keys create`; OpenAPI at /openapi.json, docs at /docs)."""
    import uvicorn

    from mnemo.serve.http import create_app

    try:
        app = create_app(config, max_body=max_body)
    except MnemoError as exc:
        fail(str(exc))
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _store(config: Path | None) -> "KeyStore":
    from mnemo.config import load_config
    from mnemo.serve.api_keys import KeyStore

    try:
        return KeyStore(load_config(config).data_dir)
    except MnemoError as exc:
        fail(str(exc))
        raise


@keys_app.command("create")
def keys_create(
    namespace: Annotated[str, typer.Argument(help="The namespace the key grants.")],
    label: Annotated[str, typer.Option(help="What the key is for.")] = "",
    config: ConfigOption = None,
) -> None:
    """Create a key for NAMESPACE; the key is printed once and only its hash is kept."""
    from mnemo.config import load_config
    from mnemo.namespaces import configured_namespace

    try:
        configured_namespace(load_config(config), namespace)
        key, token = _store(config).create(namespace, label)
    except MnemoError as exc:
        fail(str(exc))
    console.print(f"key {key.id} for namespace {namespace!r} (shown once, keep it safe):", highlight=False)
    print(token)


@keys_app.command("list")
def keys_list(config: ConfigOption = None, as_json: JsonOption = False) -> None:
    """List the keys (ids, namespaces, labels; never the keys themselves)."""
    if as_json:
        print_json([{"id": k.id, "namespace": k.namespace, "label": k.label, "created": k.created}
                    for k in _store(config).keys()])
        return
    rows = [[key.id, key.namespace, key.label, key.created] for key in _store(config).keys()]
    console.print(fitting_table("API keys", ["id", "namespace", "label", "created"], rows, whole=("id",)))


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key id shown by `mnemo keys list`.")], config: ConfigOption = None
) -> None:
    """Revoke a key at once."""
    try:
        key = _store(config).revoke(key_id)
    except MnemoError as exc:
        fail(str(exc))
    console.print(f"revoked key {key.id} (namespace {key.namespace!r})")


def register(app: typer.Typer) -> None:
    """Add `mcp`, `serve` and `keys` to the `mnemo` app."""
    app.command()(mcp)
    app.command()(serve)
    app.add_typer(keys_app, name="keys")
