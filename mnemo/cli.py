"""The `mnemo` command."""

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from mnemo.commands_extraction import extraction_state, print_extraction_state
from mnemo.commands_sleep import register as register_sleep_commands
from mnemo.commands_writeback import writeback
from mnemo import commands_assist, commands_eval, commands_memory
from mnemo.config import load_config
from mnemo.errors import MnemoError
from mnemo.memories import pending_memories
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from ontology import load_ontology

app = typer.Typer(help="mnemo: a lifelong, structured memory of your notes and chats.", no_args_is_help=True)
console = Console()
app.command()(writeback)
for _command in (commands_memory.recall, commands_memory.remember, commands_memory.forget, commands_memory.entity):
    app.command()(_command)
app.add_typer(commands_eval.eval_app, name="eval")
app.command()(commands_assist.mcp)
app.command()(commands_assist.serve)
app.add_typer(commands_assist.keys_app, name="keys")
ConfigOption = Annotated[Path | None, typer.Option("--config", "-c", help="Config file (default: $MNEMO_CONFIG or ./mnemo.yaml).")]
NamespaceOption = Annotated[str, typer.Option("--namespace", "-n", help="Whose memory to use.")]


def _fail(message: str) -> None:
    Console(stderr=True).print(f"[bold red]error:[/] {message}")
    raise typer.Exit(code=2)


@app.command()
def status(
    namespace: NamespaceOption = "example",
    config: ConfigOption = None,
) -> None:
    """Show what a namespace's memory holds: documents, chunks, graph counts, problems."""
    try:
        settings = load_config(config)
        files = NamespaceFiles(settings.data_dir, namespace)
        counts = GraphStore(files.graph_path, load_ontology()).counts()
        vectors = VectorStore(files.vectors_path)
        chunks, entities = vectors.count("chunks"), vectors.count("entities")
        problems = files.read_problems()
        pending = pending_memories(files.root, files.namespace, {d.id for d in files.read_documents()})
    except MnemoError as exc:
        _fail(str(exc))
        return
    table = Table(title=f"namespace {namespace}")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in [*counts.items(), ("chunk vectors", chunks), ("entity vectors", entities), ("problem files", len(problems)), ("pending memories", pending)]:
        if value:
            table.add_row(name, str(value))
    console.print(table)
    for problem in problems:
        console.print(f"[yellow]{problem['path']}[/]: {problem['reason']}")


@app.command()
def extraction(
    namespace: NamespaceOption = "example",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
    config: ConfigOption = None,
) -> None:
    """Show the LLM extractor's cached answers and the chunks still pending."""
    try:
        state = extraction_state(load_config(config), namespace)
    except MnemoError as exc:
        _fail(str(exc))
        return
    print_extraction_state(state, as_json, console)


register_sleep_commands(app)

from mnemo.commands_backup import register as register_backup_commands  # noqa: E402

register_backup_commands(app)

if __name__ == "__main__":
    app()
