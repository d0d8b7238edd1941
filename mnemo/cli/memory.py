"""The memory commands of `mnemo`: recall, remember, forget and entity."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.options import ConfigOption, JsonOption, NamespaceOption, fail, namespace_of, print_json
from mnemo.cli.tables import fitting_table
from mnemo.errors import MnemoError
from mnemo.recall.limit import DEFAULT_LIMIT
from mnemo.recall.time_bounds import FORMS, check_time_bounds

if TYPE_CHECKING:
    from mnemo.client import MemoryClient

console = Console()




def _client(namespace: str, config: Path | None) -> "MemoryClient":
    from mnemo.client import MemoryClient  # the stores and embedders load with the client, not with --help

    try:
        return MemoryClient(namespace, config)
    except MnemoError as exc:
        fail(str(exc))
        raise


def _check_window(since: str | None, until: str | None) -> None:
    """`--since` / `--until` refused as the options they are (recall checks them again by their API names)."""
    try:
        check_time_bounds(since, until, ("--since", "--until"))
    except MnemoError as exc:
        fail(str(exc))


def recall(
    query: Annotated[str, typer.Argument(help="What to look for, in your own words.")],
    namespace: NamespaceOption = None,
    limit: Annotated[
        int, typer.Option("--limit", "--k", min=1, max=200, help=(
            "How many memories to return (--k: the same); the Python client, the HTTP API and the MCP "
            "server return as many by default."))
    ] = DEFAULT_LIMIT,
    min_similarity: Annotated[
        float | None,
        typer.Option("--min-similarity", min=-1.0, max=1.0,
                     help="Drop passages whose cosine similarity to the query is below this (-1 to 1)."),
    ] = None,
    mode: Annotated[
        str, typer.Option("--mode", help="eager (fast) or deliberate (two hops, relations, more).")
    ] = "eager",
    since: Annotated[
        str | None,
        typer.Option("--since", help=f"Only what was written or said on or after this date or time ({FORMS})."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", help="Only what was written or said on or before this date or time (all of it)."),
    ] = None,
    project: Annotated[str | None, typer.Option("--project", help="Also the memories of this project.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Also the memories of this session.")] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Recall what memory holds about QUERY: passages, why each came back, and the entities behind them."""
    namespace = namespace_of(namespace, config)
    if mode not in ("eager", "deliberate"):
        fail(f"unknown mode {mode!r}: use eager or deliberate")
    if not query.strip():
        fail("the query is empty")
    _check_window(since, until)
    client = _client(namespace, config)
    try:
        client.check_ingested()  # before recall opens (and makes) a store
        result = client.recall(
            query, limit=limit, min_similarity=min_similarity, mode=mode, since=since, until=until,  # type: ignore[arg-type]
            project=project, session=session,
        )
    except MnemoError as exc:
        fail(str(exc))
    if as_json:
        print_json({"query": query, "namespace": namespace, **result.to_dict()})
        return
    if result.degraded:
        console.print(f"[yellow]note:[/] {result.degraded}")
    if not result.items:
        console.print(f"Nothing remembered for [bold]{query}[/] in namespace {namespace!r}.")
        return
    rows = []
    for item in result.items:
        where = " › ".join(p for p in (item.path, item.heading, _visibility(item.metadata)) if p)
        similarity = "" if item.similarity is None else f"{item.similarity:.3f}"
        rows.append([f"{item.score:.4f}", similarity, ", ".join(item.reasons), where, item.text[:300]])
    console.print(fitting_table(f"recall: {query}", ["score", "similarity", "why", "where", "memory"], rows,
                                whole=("score", "similarity"), right=("score", "similarity"), show_lines=True))
    if result.grounding:
        console.print("grounding: " + " ".join(result.grounding))


def _visibility(metadata: dict[str, object]) -> str:
    """A remembered passage's scope and expiry, when it has them."""
    parts = [str(metadata["scope"])] if metadata.get("scope") else []
    return ", ".join(parts + ([f"expires {metadata['expires_at']}"] if metadata.get("expires_at") else []))


def remember(
    text: Annotated[str, typer.Argument(help="What to remember; may name entities inline as person_id:alice.")],
    namespace: NamespaceOption = None,
    entity: Annotated[
        list[str] | None, typer.Option("--entity", "-e", help="An entity reference to attach (repeatable).")
    ] = None,
    ttl: Annotated[
        str | None, typer.Option("--ttl", help="Forget it after this long: seconds, or 90s, 30m, 12h, 7d.")
    ] = None,
    expires_at: Annotated[
        str | None, typer.Option("--expires-at", help="Forget it at this ISO time (UTC when it has no zone).")
    ] = None,
    scope: Annotated[
        str, typer.Option("--scope", help="global, project:<name> or session:<id> (recalled only when asked for).")
    ] = "global",
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Remember TEXT: written to the namespace's inbox and recallable at once; in the graph after the next ingest."""
    namespace = namespace_of(namespace, config)
    try:
        memory = _client(namespace, config).remember(
            text, list(entity or []), expires_at=expires_at, ttl=None if ttl is None else seconds(ttl), scope=scope
        )
    except MnemoError as exc:
        fail(str(exc))
    if as_json:
        print_json(memory.to_dict())
        return
    expiry = f", expires {memory.expires_at}" if memory.expires_at else ""
    console.print(f"remembered [bold]{memory.id}[/] in {namespace!r} ({memory.scope}, status: {memory.status}{expiry})")


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def seconds(ttl: str) -> float:
    """`--ttl` in seconds: a number of seconds, or one with a unit (s, m, h, d)."""
    number, unit = (ttl[:-1], ttl[-1]) if ttl[-1:] in _UNITS else (ttl, "s")
    try:
        return float(number) * _UNITS[unit]
    except ValueError:
        raise MnemoError(f"invalid --ttl {ttl!r}: use seconds, or a number with s, m, h or d (e.g. 12h)") from None


def forget(
    namespace: NamespaceOption = None,
    memory: Annotated[str | None, typer.Option("--memory", help="A memory id returned by remember.")] = None,
    entity: Annotated[str | None, typer.Option("--entity", help="An entity reference, e.g. person_id:alice.")] = None,
    prop: Annotated[
        list[str] | None, typer.Option("--property", help="Forget only this property of --entity (repeatable).")
    ] = None,
    relation: Annotated[
        list[str] | None, typer.Option("--relation", help="Forget only this relation of --entity (repeatable).")
    ] = None,
    query: Annotated[
        str | None, typer.Option("--query", help="Forget what this query finds (shown first; needs --yes).")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm forgetting what --query finds.")] = False,
    expired: Annotated[
        bool, typer.Option("--expired", help="Purge every memory whose expiry has passed (sleep mode also does).")
    ] = False,
    title: Annotated[
        str | None, typer.Option("--title", help="Forget the memory saved under this title (in --scope).")
    ] = None,
    scope: Annotated[
        str | None, typer.Option("--scope", help="Forget every memory of this scope (project:<name>, session:<id>), "
                                                 "or with --title the scope of that title.")
    ] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Forget a memory, an entity (or some properties/relations), a query's finds, a title, a scope or expired ones."""
    namespace = namespace_of(namespace, config)
    try:
        report = _client(namespace, config).forget(
            memory, entity, properties=prop, relations=relation, query=query, confirm=yes, expired=expired,
            scope=scope, title=title,
        )
    except MnemoError as exc:
        fail(str(exc))
    if as_json:
        print_json(report.to_dict())
        return
    verb = "would forget" if report.dry_run else "forgot"
    console.print(
        f"{verb}: {len(report.chunks)} passages, {len(report.docs)} documents, {len(report.entities)} entities, "
        f"{len(report.properties)} properties, {len(report.relations)} relations"
    )
    for item in report.items[:50]:
        console.print(f"  - {item.get('path', '')} {str(item.get('text', item))[:160]}")
    if report.notes:
        console.print(f"took mnemo's block out of {', '.join(report.notes)} "
                      f"(undo: mnemo writeback --undo {report.writeback_run})")
    for skipped in report.notes_skipped:
        console.print(f"[yellow]note:[/] {skipped['path']}: {skipped['reason']}")
    if report.dry_run:
        console.print("run again with --yes to forget these")


def entity(
    ref: Annotated[str, typer.Argument(help="An entity reference, e.g. person_id:alice_chen.")],
    namespace: NamespaceOption = None,
    project: Annotated[str | None, typer.Option("--project", help="Also the memories of this project.")] = None,
    session: Annotated[str | None, typer.Option("--session", help="Also the memories of this session.")] = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Show an entity: its properties (with since), its note's content and its relations."""
    namespace = namespace_of(namespace, config)
    try:
        found = _client(namespace, config).get_entity(ref, props=True, content=True, relations=True,
                                                       project=project, session=session)
    except MnemoError as exc:
        fail(str(exc))
    if as_json:
        print_json(found)
        return
    console.print(
        f"[bold]{found['name']}[/] ({found['kind']}, {found['ref']}) aliases: {', '.join(found['aliases']) or '-'}"
    )
    if "written" in found:
        written = found["written"]
        console.print(f"  written: {written['date'] or 'no date'}  [dim](from {written['date_source']})[/]")
    for key, value in found["properties"].items():
        console.print(f"  {key}: {value['value']}  [dim](since {value['since'] or '?'})[/]")
    if found.get("content"):
        console.print(escape(found["content"].strip()), highlight=False)
    for rel in found["relations"]:
        console.print(f"  {rel['src']} —{rel['role'] or rel['type']}→ {rel['dst']}")


def register(app: typer.Typer) -> None:
    """Add `recall`, `remember`, `forget` and `entity` to the `mnemo` app."""
    for command in (recall, remember, forget, entity):
        app.command()(command)
