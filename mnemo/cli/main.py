"""The `mnemo` command."""

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from mnemo.cli import assist as commands_assist
from mnemo.cli import evaluate as commands_eval
from mnemo.cli import memory as commands_memory
from mnemo.cli import titled as commands_titled
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
from mnemo.cli.shards import shard_app
from mnemo.cli.sleep import register as register_sleep_commands
from mnemo.cli.writeback import writeback
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # pydantic and yaml load when a command runs, not with --help
    from mnemo.config import MnemoConfig

app = typer.Typer(help="mnemo: a lifelong, structured memory of your notes and chats.", no_args_is_help=True,
                  cls=NewcomerOrder)
console = Console()
DEGRADED_EXIT = 3  # `mnemo status`: the namespace answers, but a store could not be read
app.command()(writeback)
for _command in (commands_memory.recall, commands_memory.remember, commands_memory.forget, commands_memory.entity):
    app.command()(_command)
commands_titled.register(app)
app.add_typer(commands_eval.eval_app, name="eval")
app.command()(commands_assist.mcp)
app.command()(commands_assist.serve)
app.add_typer(commands_assist.keys_app, name="keys")
app.add_typer(shard_app, name="shard")
app.callback()(refuse_undecodable_arguments)


@app.command()
def status(
    namespace: NamespaceOption = None,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Show what a namespace's memory holds: documents, chunks, graph counts, problems (exit 3 when degraded)."""
    from mnemo.config import load_config
    from mnemo.ingest.embedder_choice import current_choice
    from mnemo.sources.memory_files import pending_memories  # the stores load here, not with --help
    from mnemo.stores.files import NamespaceFiles
    from mnemo.stores.graph import GraphStore
    from mnemo.stores.vectors import VectorStore
    from ontology import load_ontology

    namespace = namespace_of(namespace, config)
    try:
        settings = load_config(config)
        files = NamespaceFiles(settings.data_root(namespace), namespace)
        if not files.root.is_dir():
            _no_data(settings, namespace, as_json)
            return
        counts = GraphStore(files.graph_path, load_ontology(), engine=settings.graph.engine).counts()
        vectors = VectorStore(files.vectors_path)
        present = files.vectors_path.is_dir()  # counting never makes the folder
        chunks, entities = (vectors.count("chunks"), vectors.count("entities")) if present else (0, 0)
        problems = files.read_problems()
        pending = pending_memories(files.root, files.namespace, {d.id for d in files.read_documents()})
        embedder = current_choice(settings, files.root)
    except MnemoError as exc:
        fail(str(exc))
    rows = [*counts.items(), ("chunk vectors", chunks), ("entity vectors", entities),
            ("problem files", len({p["path"] for p in problems})), ("pending memories", pending)]
    if as_json:
        print_json({"namespace": namespace, "ingested": True, "counts": dict(rows), "problems": problems,
                    "degraded": list(vectors.problems.values()), "embedder": vars(embedder)})
    else:
        _print_status(namespace, rows, problems, list(vectors.problems.values()))
        console.print(embedder.line(), soft_wrap=True, markup=False)
    if vectors.problems:
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


@app.command()
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


@app.command()
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


register_sleep_commands(app)

from mnemo.cli.backup import register as register_backup_commands  # noqa: E402

register_backup_commands(app)

from mnemo.cli.init import register as register_init  # noqa: E402

register_init(app)

from mnemo.cli.ingest import register as register_ingest  # noqa: E402

register_ingest(app)

from mnemo.cli.up import register as register_up  # noqa: E402

register_up(app)

if __name__ == "__main__":
    app()
