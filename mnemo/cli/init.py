"""`mnemo init`: a person's own vaults and chat exports, written into mnemo.yaml."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.options import ConfigOption, fail
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # the scanners, the configuration and ruamel.yaml load when init runs, not with --help
    from mnemo.cli.config_file import Written
    from mnemo.cli.sources_found import Survey

console = Console()
DEFAULT_NAME = "me"


PathsOption = Annotated[list[Path] | None, typer.Argument(
    help="Vaults, Logseq graphs or chat exports; their kind is detected "
         "(an .obsidian/ folder, a logseq/config.edn, an export's JSON shape).", show_default=False)]
ObsidianOption = Annotated[
    list[Path] | None, typer.Option("--obsidian", help="An Obsidian vault (or any folder of Markdown notes).")]
LogseqOption = Annotated[list[Path] | None, typer.Option("--logseq", help="A Logseq graph folder.")]
ChatgptOption = Annotated[
    list[Path] | None, typer.Option("--chatgpt", help="A ChatGPT export: conversations.json, the .zip, or its folder.")]
ClaudeOption = Annotated[
    list[Path] | None, typer.Option("--claude", help="A Claude export: conversations.json, the .zip, or its folder.")]
InboxOption = Annotated[Path | None, typer.Option(
    "--inbox", help="A folder to drop exports and notes into later (made when missing); each is ingested as it lands.")]
NameOption = Annotated[str | None, typer.Option("--name", help=f"The namespace to write (default: {DEFAULT_NAME!r}).")]
SelfOption = Annotated[
    str | None, typer.Option("--self", help="Your name as your notes write it (the memory's own person).")]


def _named(paths: PathsOption, kinds: dict[str, list[Path] | None]) -> list[tuple[str, Path]]:
    """(kind, path) for every path given: a flag names the kind, a bare path has it detected."""
    from mnemo.cli.sources_found import detect_kind

    named = [(kind, path) for kind, given in kinds.items() for path in given or []]
    for path in paths or []:
        if not path.exists():
            fail(f"{path}: no such file or folder")
        kind = detect_kind(path)
        if kind is None:
            fail(f"{path}: cannot tell what this is (no .obsidian/ folder, no logseq/config.edn, "
                 "not a ChatGPT or Claude export); name its kind with --obsidian, --logseq, --chatgpt or --claude")
        named.append((kind, path))
    return named


def _surveyed(name: str, named: list[tuple[str, Path]]) -> list["Survey"]:
    """Each source scanned as ingest would; a missing path or one with nothing readable stops init."""
    from mnemo.cli.sources_found import survey
    from mnemo.config import SourceConfig

    found = []
    for kind, path in named:
        if kind == "inbox":
            path.expanduser().mkdir(parents=True, exist_ok=True)  # an inbox may start empty
        if not path.exists():
            fail(f"{path}: no such file or folder")
        result = survey(name, SourceConfig(kind=kind, path=path.expanduser().resolve()))  # type: ignore[arg-type]
        if not result.documents and kind != "inbox":
            why = f": {result.skipped[0].path}: {result.skipped[0].reason}" if result.skipped else ""
            fail(f"{path}: nothing mnemo can read here as a source of kind {kind}{why}")
        found.append(result)
    return found


def _report(found: list["Survey"], written: "Written", name: str) -> None:
    for item in found:
        console.print(f"found {escape(item.describe())}", soft_wrap=True)
    what = "created" if written.created else "updated"
    console.print(f"{what} {written.path}: namespace {name!r} with {len(written.added)} new source(s)"
                  + (f", {len(written.already)} already there" if written.already else ""))
    if written.default_namespace == name:
        console.print(f"{name!r} is the default namespace: commands use it without --namespace")
    else:
        console.print(f"the default namespace stays {written.default_namespace!r}: use --namespace {name}")
    _report_embedder(found, written)
    console.print("next: mnemo ingest")


def _report_embedder(found: list["Survey"], written: "Written") -> None:
    """The languages found and the embedder they call for (ingest makes and records the choice)."""
    from mnemo.config import load_config
    from mnemo.ingest.embedder_choice import choose_embedder, explicit_choice
    from mnemo.ingest.languages import merged_profiles

    profile = merged_profiles(item.languages for item in found)
    choice = explicit_choice(load_config(written.path)) or choose_embedder(profile)
    console.print(f"languages: {profile.describe()}; embedder: {choice.kind} ({escape(choice.reason)})", soft_wrap=True)


def init(
    paths: PathsOption = None,
    obsidian: ObsidianOption = None,
    logseq: LogseqOption = None,
    chatgpt: ChatgptOption = None,
    claude: ClaudeOption = None,
    inbox: InboxOption = None,
    name: NameOption = None,
    self_name: SelfOption = None,
    config: ConfigOption = None,
) -> None:
    """Write (or extend) mnemo.yaml for your own vaults and chat exports, and say what they hold."""
    from mnemo.cli.config_file import add_sources
    from mnemo.config import resolve_config_path, validate_namespace

    named = _named(paths, {"obsidian": obsidian, "logseq": logseq, "chatgpt": chatgpt, "claude": claude,
                           "inbox": [inbox] if inbox else None})
    if not named:
        fail("name at least one source: a path, or --obsidian/--logseq/--chatgpt/--claude/--inbox PATH")
    namespace = name or DEFAULT_NAME
    try:
        validate_namespace(namespace)
    except MnemoError as exc:
        fail(str(exc))
    found = _surveyed(namespace, named)
    try:
        written = add_sources(resolve_config_path(config), namespace, [f.source for f in found], self_name)
    except MnemoError as exc:
        fail(str(exc))
    _report(found, written, namespace)


def register(app: typer.Typer) -> None:
    """Add `init` to the `mnemo` app."""
    app.command()(init)
