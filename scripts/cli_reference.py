"""Write docs/CLI.md, the reference of every `mnemo` command, from the CLI itself.

    .venv/bin/python scripts/cli_reference.py          # rewrite docs/CLI.md
    .venv/bin/python scripts/cli_reference.py --check  # exit 1 if docs/CLI.md is stale

The text comes from Typer's click objects (`typer.main.get_command`): each command's
help, usage line, and each argument's and option's help, metavar and default, as
`mnemo COMMAND --help` shows them. tests/docs/test_cli_reference.py fails when the committed
file differs from what this script writes, or when a command has no help text.
"""

import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
import typer.core

from mnemo.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "CLI.md"
PROGRAM = "mnemo"
HEADER = """# CLI reference

Every `mnemo` command, its arguments and its options, as `mnemo COMMAND --help` shows them.
This page is generated from the CLI by `scripts/cli_reference.py`; edit the help texts in
the code, then run `.venv/bin/python scripts/cli_reference.py`.

Every command that reads memory accepts `--config PATH` (default: `$MNEMO_CONFIG`, else
`./mnemo.yaml`) and exits non-zero with a message naming the problem on bad input.
`--namespace` takes only a namespace `mnemo.yaml` lists: another name exits 2 naming the
configured ones and the closest match, and creates nothing. Tables fold long cells onto more
lines rather than cut them; `--json` prints the complete data. `mnemo --help` lists the
commands in the order a newcomer uses them (init, ingest, recall, ...); this page, by name.
"""


@dataclass(frozen=True)
class Entry:
    """One command or command group, with the context Typer would build to run it."""

    path: str
    command: Any  # a command of Typer's own copy of click (typer._click), which Typer does not export
    context: typer.Context


def root_group(typer_app: typer.Typer = app) -> typer.core.TyperGroup:
    """A Typer app (`mnemo` by default) as the click group Typer builds from it."""
    group = typer.main.get_command(typer_app)
    if not isinstance(group, typer.core.TyperGroup):
        raise TypeError(f"the app is a {type(group).__name__}, not a command group")
    return group


def walk(group: typer.core.TyperGroup, parent: typer.Context, prefix: str) -> Iterator[Entry]:
    """Every visible command below `group`, depth first, each group before its subcommands."""
    for name in sorted(group.commands):
        command = group.commands[name]
        if command.hidden:
            continue
        context = typer.Context(command, info_name=name, parent=parent)
        yield Entry(f"{prefix} {name}", command, context)
        if isinstance(command, typer.core.TyperGroup):
            yield from walk(command, context, f"{prefix} {name}")


def entries(group: typer.core.TyperGroup | None = None) -> list[Entry]:
    """The root group (the mnemo app by default) followed by every command and subcommand."""
    group = group or root_group()
    context = typer.Context(group, info_name=PROGRAM)
    return [Entry(PROGRAM, group, context), *walk(group, context, PROGRAM)]


def help_text(entry: Entry) -> str:
    """The command's help, as written in its docstring or `help=`; empty when it has none."""
    return inspect.cleandoc(entry.command.help or "")


def missing_help(all_entries: list[Entry]) -> list[str]:
    """The commands (and groups) that have no help text."""
    return [entry.path for entry in all_entries if not help_text(entry)]


def cell(text: str) -> str:
    """Text fit for one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def parameter_rows(entry: Entry) -> list[str]:
    """One table row per visible argument and option, with its help, default and range."""
    rows = []
    for parameter in entry.command.params:
        if getattr(parameter, "hidden", False):  # an option can be hidden; an argument cannot
            continue
        record = parameter.get_help_record(entry.context)
        if record is None:
            continue
        names, details = record
        rows.append(f"| `{cell(names)}` | {cell(details)} |")
    return rows


def section(entry: Entry) -> str:
    """The Markdown for one command: heading, help, usage and its parameters."""
    level = "##" if entry.path.count(" ") <= 1 else "###"
    usage = entry.command.get_usage(entry.context).removeprefix("Usage: ")
    parts = [f"{level} {entry.path}", help_text(entry), f"```\n{usage}\n```"]
    rows = parameter_rows(entry)
    if rows:
        parts.append("\n".join(["| argument or option | meaning |", "|---|---|", *rows]))
    if isinstance(entry.command, typer.core.TyperGroup):
        parts.append(command_table(entry))
    return "\n\n".join(parts)


def command_table(entry: Entry) -> str:
    """A group's subcommands, each with the first sentence of its help."""
    group = entry.command
    assert isinstance(group, typer.core.TyperGroup)
    rows = ["| command | what it does |", "|---|---|"]
    for name in sorted(group.commands):
        command = group.commands[name]
        if not command.hidden:
            link = f"[`{entry.path} {name}`](#{anchor(f'{entry.path} {name}')})"
            rows.append(f"| {link} | {cell(command.get_short_help_str(limit=120))} |")
    return "\n".join(rows)


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading made of words and spaces."""
    return heading.lower().replace(" ", "-")


def render() -> str:
    """The whole reference page."""
    return HEADER + "\n" + "\n\n".join(section(entry) for entry in entries()) + "\n"


def main(argv: list[str]) -> int:
    """Rewrite docs/CLI.md, or with --check report whether it is current."""
    missing = missing_help(entries())
    if missing:
        print(f"commands without help text: {', '.join(missing)}", file=sys.stderr)
        return 1
    text = render()
    if "--check" in argv:
        current = REFERENCE.read_text(encoding="utf-8") if REFERENCE.is_file() else ""
        if current != text:
            print(f"{REFERENCE.relative_to(ROOT)} is stale: run python scripts/cli_reference.py", file=sys.stderr)
            return 1
        return 0
    REFERENCE.write_text(text, encoding="utf-8")
    print(f"wrote {REFERENCE.relative_to(ROOT)} ({len(entries()) - 1} commands)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
