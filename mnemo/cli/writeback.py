"""`mnemo writeback`: write insights into the notes, show the diffs, or undo a run."""

from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.options import ConfigOption, NamespaceOption, fail, namespace_of
from mnemo.config import load_config
from mnemo.errors import MnemoError
from mnemo.writeback.run import (
    WritebackPlan,
    WritebackReport,
    journal_for,
    plan_namespace,
    undo_namespace,
    writeback_namespace,
)
from ontology import load_ontology

console = Console()



def _print_plan(plan: WritebackPlan) -> None:
    console.print(
        f"{len(plan.changes)} to write, {plan.unchanged} unchanged, {plan.opted_out} opted out, "
        f"{plan.excluded} excluded, {len(plan.skipped)} skipped"
    )
    console.print(f"{len(plan.page_changes)} generated pages to create, replace or remove")


def _print_pages(plan: WritebackPlan) -> None:
    """One line per generated page a run would create, replace or remove (pages are mnemo's own)."""
    for change in plan.page_changes:
        verb = "create" if not change.old else "remove" if not change.new else "replace"
        console.print(f"page {verb:7} {escape(change.source)}: {escape(change.path)}", highlight=False)


def _print_report(report: WritebackReport, verb: str) -> None:
    console.print(f"run [bold]{report.run}[/]: {len(report.written)} notes {verb}, {len(report.skipped)} skipped")
    for skip in report.skipped:
        console.print(f"[yellow]{escape(skip.path)}[/]: {escape(skip.reason)}")


def writeback(
    namespace: NamespaceOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the note diffs and generated pages a run would make; write nothing.")
    ] = False,
    undo: Annotated[
        str | None, typer.Option("--undo", metavar="RUN", help="Restore the notes a run wrote (id or prefix).")
    ] = None,
    runs: Annotated[bool, typer.Option("--runs", help="List the write-back runs in the journal.")] = False,
    config: ConfigOption = None,
) -> None:
    """Write what mnemo learned into each note as mnemo-* properties (nothing else in the note changes)."""
    namespace = namespace_of(namespace, config)
    try:
        settings = load_config(config)
        if runs:
            for run in journal_for(settings, namespace).runs():
                console.print(f"{run.run}  {run.op:5}  {run.at}  {run.notes} notes")
            return
        if undo is not None:
            _print_report(undo_namespace(settings, namespace, undo), "restored")
            return
        if dry_run:
            plan = plan_namespace(settings, namespace, load_ontology())
            for change in plan.changes:
                console.out(change.diff(), end="", highlight=False)
            _print_pages(plan)
            _print_plan(plan)
            for skip in plan.skipped:
                console.print(f"[yellow]{escape(skip.path)}[/]: {escape(skip.reason)}")
            return
        plan, report = writeback_namespace(settings, namespace, load_ontology())
    except (MnemoError, FileNotFoundError) as exc:
        fail(str(exc))
    _print_plan(plan)
    _print_report(report, "written")
