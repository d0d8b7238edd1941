"""The `mnemo` command."""

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from mnemo.cli import assist, backup, evaluate, ingest, init, memory, shards, sleep, titled, up, writeback
from mnemo.cli.extraction import extraction_state, print_extraction_state
from mnemo.cli.options import (
    ConfigOption,
    JsonOption,
    NamespaceOption,
    fail,
    namespace_of,
    print_json,
    refuse_undecodable_arguments,
)
from mnemo.cli.order import NewcomerOrder
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # pydantic and yaml load when a command runs, not with --help
    from mnemo.config import MnemoConfig

app = typer.Typer(help="mnemo: a lifelong, structured memory of your notes and chats.", no_args_is_help=True,
                  cls=NewcomerOrder)
console = Console()
DEGRADED_EXIT = 3  # `mnemo status`: the namespace answers, but a store could not be read
app.callback()(refuse_undecodable_arguments)


def status(
    namespace: NamespaceOption = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Show what a namespace's memory holds: documents, chunks, graph counts, problems (exit 3 when degraded)."""
    from mnemo.config import load_config
    from mnemo.ingest.embedder_choice import current_choice
    from mnemo.maintenance.figures import namespace_figures  # kept counts: the stores load only to recount

    namespace = namespace_of(namespace, config)
    try:
        settings = load_config(config)
        root = settings.data_root(namespace) / namespace
        if not root.is_dir():
            _no_data(settings, namespace, as_json)
            return
        figures = namespace_figures(root, namespace, settings.graph.engine)
        embedder = current_choice(settings, root)
    except MnemoError as exc:
        fail(str(exc))
    rows, problems = figures.rows(), figures.problems
    if as_json:
        print_json({"namespace": namespace, "ingested": True, "counts": dict(rows), "problems": problems,
                    "degraded": figures.degraded, "embedder": vars(embedder)})
    else:
        _print_status(namespace, rows, problems, list(figures.degraded))
        console.print(embedder.line(), soft_wrap=True, markup=False)
        if cards := figures.cards_line():
            console.print(cards, soft_wrap=True, markup=False)
    if figures.degraded:
        raise typer.Exit(code=DEGRADED_EXIT)


def _print_status(namespace: str, rows: list[tuple[str, int]], problems: list[dict[str, str]],
                  degraded: list[object]) -> None:
    table = Table(title=f"namespace {namespace}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in rows:
        if value:
            table.add_row(name, str(value))
    console.print(table)
    for problem in problems:
        console.print(f"[yellow]{problem['path']}[/]: {problem['reason']}")
    for unreadable in degraded:
        console.print(f"[yellow]degraded:[/] {unreadable}")


def doctor(
    namespace: NamespaceOption = None,
    fix: Annotated[bool, typer.Option("--fix", help="Repair what can be repaired.")] = False,
    rebuild_graph: Annotated[bool, typer.Option(
        "--rebuild-graph", help="First make the graph again from the namespace's files with graph.engine.")] = False,
    config: ConfigOption = None,
) -> None:
    """Check a namespace's stores for what a killed or concurrent run left; --fix repairs it."""
    from mnemo.client import MemoryClient
    from mnemo.config import load_config
    from mnemo.maintenance.doctor import examine
    from ontology import load_ontology

    namespace = namespace_of(namespace, config)
    try:
        settings = load_config(config)
        if rebuild_graph:
            _rebuild_graph(settings, namespace)
        findings = examine(settings.data_dir, namespace, load_ontology(), fix,
                           lambda: MemoryClient(namespace, settings).finish_forget(), settings.graph.engine)
    except MnemoError as exc:
        fail(str(exc))
    if not findings:
        console.print(f"namespace {namespace}: nothing found to repair")
    for finding in findings:
        console.print(f"[yellow]found:[/] {finding.problem}")
        if finding.fixed:
            console.print(f"[green]fixed:[/] {finding.fixed}")
    if any(not finding.fixed for finding in findings):
        raise typer.Exit(code=1)


def _rebuild_graph(settings: "MnemoConfig", namespace: str) -> None:
    from mnemo.maintenance.doctor import rebuild_graph
    from ontology import load_ontology

    done = rebuild_graph(settings.data_root(namespace), namespace, load_ontology(), settings.graph.engine)
    if not done.compaction.rebuilt:
        console.print(f"namespace {namespace}: no graph to rebuild (the next ingest builds it with {done.engine})")
        return
    was = done.before or "an unknown engine"
    console.print(f"rebuilt the graph of {namespace} with {done.engine} (it was built with {was}): "
                  f"{done.compaction.size:,} -> {done.compaction.size_after:,} bytes in {done.compaction.seconds} s")


def _no_data(settings: "MnemoConfig", namespace: str, as_json: bool) -> None:
    """A configured namespace with no folder yet: nothing ingested yet."""
    if as_json:
        print_json({"namespace": namespace, "ingested": False, "counts": {}, "problems": [], "degraded": []})
        return
    console.print(f"namespace {namespace!r} has no data yet in {settings.data_dir}: run `mnemo ingest`")


def extraction(
    namespace: NamespaceOption = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Show the LLM extractor's cached answers and the chunks still pending."""
    from mnemo.config import load_config

    namespace = namespace_of(namespace, config)
    try:
        state = extraction_state(load_config(config), namespace)
    except MnemoError as exc:
        fail(str(exc))
    print_extraction_state(state, as_json, console)


def register(app: typer.Typer) -> None:
    """Add `status`, `doctor` and `extraction`, this module's commands, to the `mnemo` app."""
    for command in (status, doctor, extraction):
        app.command()(command)


# Every module of commands adds them through its `register(app)`; `mnemo --help` lists them in NEWCOMER_ORDER.
for register_commands in (writeback.register, memory.register, titled.register, evaluate.register, assist.register,
                          shards.register, register, sleep.register, backup.register, init.register, ingest.register,
                          up.register):
    register_commands(app)

if __name__ == "__main__":
    app()
