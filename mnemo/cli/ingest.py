"""`mnemo ingest`: the ingest job run through Dagster on the project's instance, with its steps
shown as they go and a summary of what changed at the end."""

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mnemo.cli.instance import dagster_home
from mnemo.cli.options import ConfigOption, JsonOption, attempt, fail, print_json
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # the configuration loads when the command runs, not with --help
    from mnemo.config import MnemoConfig
    from mnemo_dagster.jobs.launch import IngestOutcome

console = Console()
SHOWN_PROBLEMS = 10
NamespacesArgument = Annotated[
    list[str] | None, typer.Argument(help="Namespaces to ingest (default: every configured one).", show_default=False)
]
# (column, asset, metadata key) of the summary table
SUMMARY = [
    ("documents", "documents", "documents"), ("new", "documents", "new"), ("changed", "documents", "changed"),
    ("deleted", "documents", "deleted"), ("passages", "chunks", "chunks"), ("entities", "extractions", "entities"),
    ("relations", "extractions", "relations"), ("problem files", "documents", "problems"),
    ("seconds", "run", "seconds"),
]


def _namespaces(settings: "MnemoConfig", named: list[str] | None, path: Path) -> list[str]:
    from mnemo.namespaces import configured_namespace

    wanted = list(named or sorted(settings.namespaces))
    if not wanted:
        fail(f"{path} configures no namespace: add your notes with `mnemo init PATH`")
    for name in wanted:
        attempt(lambda: configured_namespace(settings, name))  # noqa: B023 - called at once
    return wanted


def _summary(outcomes: list["IngestOutcome"]) -> Table:
    """What each namespace's run found and changed: a row per count, a column per namespace."""
    table = Table(title="ingest")
    table.add_column("what")
    for outcome in outcomes:
        table.add_column(outcome.namespace, justify="right")
    for row, asset, key in SUMMARY:
        table.add_row(row, *[str(o.metadata.get(asset, {}).get(key, "-")) for o in outcomes])
    return table


def _problems(settings: "MnemoConfig", outcomes: list["IngestOutcome"]) -> dict[str, list[dict[str, Any]]]:
    from mnemo.stores.files import NamespaceFiles  # polars loads after the run, not with --help

    return {o.namespace: NamespaceFiles(settings.data_root(o.namespace), o.namespace).read_problems() for o in outcomes}


def _print_problems(problems: dict[str, list[dict[str, Any]]]) -> None:
    for namespace, found in problems.items():
        for problem in found[:SHOWN_PROBLEMS]:
            where = escape(f"{namespace}: {problem['path']}")
            console.print(f"[yellow]{where}[/]: {escape(problem['reason'])}")
        if len(found) > SHOWN_PROBLEMS:
            console.print(f"{namespace}: {len(found) - SHOWN_PROBLEMS} more problems: mnemo status -n {namespace}")


def _run(wanted: list[str], path: Path, as_json: bool) -> list["IngestOutcome"]:
    from mnemo.cli.ingest_progress import run_progress  # rich's live display loads when ingest runs, not with --help
    from mnemo_dagster.jobs.launch import ingest as run_ingest  # Dagster is loaded only by the commands that run it

    dagster_home(path)
    with run_progress(Console(stderr=True) if as_json else console) as report:  # --json: progress on stderr
        return run_ingest(wanted, path, report)


def ingest(namespaces: NamespacesArgument = None, as_json: JsonOption = False, config: ConfigOption = None) -> None:
    """Run the ingest job for your namespaces in Dagster (the run shows in the UI) and sum up what changed."""
    from mnemo.config import load_config, resolve_config_path

    path = resolve_config_path(config)
    try:
        settings = load_config(config)
    except MnemoError as exc:
        fail(str(exc))
    outcomes = _run(_namespaces(settings, namespaces, path), path, as_json)
    problems = _problems(settings, outcomes)
    if as_json:
        print_json([{**asdict(o), "problem_files": problems[o.namespace]} for o in outcomes])
    else:
        console.print(_summary(outcomes))
        _print_problems(problems)
    for outcome in outcomes:
        for check in outcome.failed_checks:
            Console(stderr=True).print(f"[yellow]check failed:[/] {outcome.namespace} {escape(check)}")
    failed = [o for o in outcomes if not o.success]
    if failed:
        Console(stderr=True).print(f"[bold red]error:[/] the ingest run for {failed[0].namespace!r} failed "
                                   f"(run {failed[0].run_id}): {escape(failed[0].error)}")
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    """Add `ingest` to the `mnemo` app."""
    app.command()(ingest)
