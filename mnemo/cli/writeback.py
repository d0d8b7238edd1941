"""`mnemo writeback`: write insights into the notes, review what a run would do, or undo a run."""

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.options import ConfigOption, JsonOption, NamespaceOption, fail, namespace_of, print_json
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # the configuration and the write-back (Kùzu, polars) load when the command runs, not with --help
    from mnemo.config import MnemoConfig
    from mnemo.writeback.review import Review
    from mnemo.writeback.run import WritebackPlan, WritebackReport

console = Console()
ITEMS_SHOWN = 3  # of a list property, in an example
SKIPS_SHOWN = 10


def _print_review(found: "Review", namespace: str) -> None:
    console.print(f"[bold]Write-back of {escape(namespace)}, dry run[/]: nothing is written.")
    console.print(
        f"{found.notes} notes to change, {found.unchanged} unchanged, {found.opted_out} opted out, "
        f"{found.excluded} excluded, {len(found.skipped)} skipped", highlight=False,
    )
    width = max((len(name) for name in [*found.properties, *found.removed]), default=0)
    for name, count in found.properties.items():
        console.print(f"  {name:{width}}  {count} notes", highlight=False)
    for name, count in found.removed.items():
        console.print(f"  {name:{width}}  removed from {count} notes", highlight=False)
    pages = ", ".join(f"{len(paths)} to {verb}" for verb, paths in found.pages.items())
    console.print(f"generated pages: {pages}", highlight=False)
    if found.examples:
        shown = f"{len(found.examples)} of the {found.notes} notes"
        console.print(f"\n[bold]{shown}[/], with the properties they would have:")
    for example in found.examples:
        console.print(escape(example.path), highlight=False, soft_wrap=True)
        for line in _shortened(example.lines):
            console.print(f"    {escape(line)}", highlight=False, soft_wrap=True)
    _print_skips(found.skipped)
    console.print("\nThe full diff: [bold]--diff[/]; all of it as data: [bold]--json[/].")


def _shortened(lines: tuple[str, ...]) -> list[str]:
    """An example's lines with each list cut to its first few items."""
    shown: list[str] = []
    items = 0
    for line in lines:
        item = line[:1] in (" ", "\t")
        items = items + 1 if item else 0
        if items <= ITEMS_SHOWN:
            shown.append(line)
        elif items == ITEMS_SHOWN + 1:
            shown.append(f"{line[:len(line) - len(line.lstrip())]}…")
    return shown


def _print_skips(skipped: list[tuple[str, str]]) -> None:
    for path, reason in skipped[:SKIPS_SHOWN]:
        console.print(f"[yellow]{escape(path)}[/]: {escape(reason)}", soft_wrap=True)
    if len(skipped) > SKIPS_SHOWN:
        console.print(f"[yellow]… and {len(skipped) - SKIPS_SHOWN} more skipped (--json lists them all)[/]")


def _print_diff(plan: "WritebackPlan") -> None:
    """Every note's unified diff, then one line per generated page."""
    from mnemo.writeback.review import page_verb

    for change in plan.changes:
        console.out(change.diff(), end="", highlight=False)
    for page in plan.page_changes:
        verb = page_verb(page.old, page.new)
        console.print(f"page {verb:7} {escape(page.source)}: {escape(page.path)}", highlight=False)


def _dry_run(settings: "MnemoConfig", namespace: str, diff: bool, as_json: bool) -> None:
    from mnemo.writeback.review import review
    from mnemo.writeback.run import plan_namespace
    from ontology import load_ontology

    plan = plan_namespace(settings, namespace, load_ontology())
    found = review(plan, settings.writeback.key)
    if as_json:
        data = found.as_data()
        if diff:
            data["diffs"] = [{"source": c.source, "path": c.path, "diff": c.diff()} for c in plan.changes]
        print_json(data)
        return
    if diff:
        _print_diff(plan)
    _print_review(found, namespace)


def undo_command(run: str, namespace: str, config: Path | None) -> str:
    """The command that undoes a run, to be pasted as it is."""
    words = ["mnemo", "writeback", "--namespace", namespace, "--undo", run]
    if config is not None:
        words += ["--config", str(config.resolve())]
    return shlex.join(words)


def _print_report(report: "WritebackReport", verb: str) -> None:
    console.print(f"run [bold]{report.run}[/]: {len(report.written)} notes {verb}, {len(report.skipped)} skipped")
    _print_skips([(s.path, s.reason) for s in report.skipped])


def _write(settings: "MnemoConfig", namespace: str, config: Path | None, as_json: bool) -> None:
    from mnemo.writeback.run import writeback_namespace
    from ontology import load_ontology

    plan, report = writeback_namespace(settings, namespace, load_ontology())
    undo = undo_command(report.run, namespace, config) if report.written or report.pages else None
    if as_json:
        print_json({"run": report.run, "written": report.written, "pages": report.pages, "undo": undo,
                    "skipped": [{"path": s.path, "reason": s.reason} for s in report.skipped]})
        return
    console.print(f"{len(plan.changes)} to write, {plan.unchanged} unchanged, {plan.opted_out} opted out, "
                  f"{plan.excluded} excluded; {len(report.pages)} generated pages written")
    _print_report(report, "written")
    if undo:
        console.print(f"To undo this run: {escape(undo)}", highlight=False, soft_wrap=True)


def writeback(
    namespace: NamespaceOption = None,
    dry_run: Annotated[
        bool, typer.Option(
            "--dry-run", help="Sum up what a run would change: per property, pages, examples. Write nothing.",
        )
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="With the dry run, every note's diff and every page too (implies --dry-run).")
    ] = False,
    undo: Annotated[
        str | None, typer.Option("--undo", metavar="RUN", help="Restore the notes a run wrote (id or prefix).")
    ] = None,
    runs: Annotated[bool, typer.Option("--runs", help="List the write-back runs in the journal.")] = False,
    as_json: JsonOption = False,
    config: ConfigOption = None,
) -> None:
    """Write what mnemo learned into each note as mnemo-* properties (nothing else in the note changes)."""
    from mnemo.config import load_config
    from mnemo.writeback.run import journal_for, undo_namespace

    namespace = namespace_of(namespace, config)
    try:
        settings = load_config(config)
        if runs:
            for run in journal_for(settings, namespace).runs():
                console.print(f"{run.run}  {run.op:5}  {run.at}  {run.notes} notes")
        elif undo is not None:
            _print_report(undo_namespace(settings, namespace, undo), "restored")
        elif dry_run or diff:
            _dry_run(settings, namespace, diff, as_json)
        else:
            _write(settings, namespace, config, as_json)
    except (MnemoError, FileNotFoundError) as exc:
        fail(str(exc))


def register(app: typer.Typer) -> None:
    """Add `writeback` to the `mnemo` app."""
    app.command()(writeback)
