"""`mnemo eval locomo`, `mnemo eval notes` and `mnemo eval links`: recall quality and related notes
measured from the command line."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from mnemo.cli.options import ConfigOption, fail
from mnemo.errors import ConfigError, MnemoError

if TYPE_CHECKING:  # the configuration and the embedders load when a command runs, not with --help
    from mnemo.config import EmbedderConfig, SourceConfig
    from mnemo.stores.embedders import Embedder

JsonOutOption = Annotated[Path | None, typer.Option("--json", help="Write all figures as JSON to this file.")]
AfterSleepOption = Annotated[bool, typer.Option(
    "--after-sleep", help="Also consolidate (sleep mode, offline) after ingest and ask every question again.")]
eval_app = typer.Typer(help="Measure recall quality on public benchmarks and on your own vault.", no_args_is_help=True)



def _progress(message: str) -> None:
    Console(stderr=True).print(message)


def _embedder_settings(config: Path | None, vault: "SourceConfig | None" = None) -> "EmbedderConfig":
    """mnemo.yaml's `embedder:` when it names one; else, for a vault, the embedder its languages call
    for (chosen as ingest chooses it); else the packaged MiniLM."""
    from mnemo.config import MnemoConfig, load_config
    from mnemo.ingest.embedder_choice import choose_embedder, embedder_settings, explicit_choice

    try:
        settings = load_config(config)
    except ConfigError:
        if config is not None:
            raise
        settings = MnemoConfig()
    if vault is None or explicit_choice(settings) is not None:
        return settings.embedder
    from mnemo.cli.sources_found import survey

    profile = survey("eval", vault).languages
    choice = choose_embedder(profile)
    _progress(f"languages: {profile.describe()}; embedder: {choice.kind} ({choice.reason})")
    return embedder_settings(settings, choice)


def _report(config: Path | None, json_out: Path | None, table: Callable[[dict[str, Any]], str],
            run: Callable[["Embedder"], dict[str, Any]], vault: "SourceConfig | None" = None) -> None:
    """Run an evaluation with the configured (or, for a vault, the chosen) embedder, print its table, write its JSON."""
    from mnemo.stores.embedders import build_embedder

    try:
        embedder = build_embedder(_embedder_settings(config, vault))
        report = {**run(embedder), "embedder": embedder.name}
    except MnemoError as exc:
        fail(str(exc))
    typer.echo(table(report))
    if json_out:
        json_out.write_text(json.dumps(report, indent=1), encoding="utf-8")


def _vault_source(vault: Path, kind: str) -> "SourceConfig | None":
    """The vault as a source, to tell its languages; None when it is not a folder (the evaluation says so)."""
    from mnemo.config import SourceConfig

    return SourceConfig(kind=kind, path=vault.resolve()) if vault.is_dir() else None  # type: ignore[arg-type]


@eval_app.command("locomo", context_settings={"allow_extra_args": True})
def eval_locomo(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A LoCoMo JSON file (list of conversations with qa).")],
    k: Annotated[list[int] | None, typer.Option("--k", help="Cut-offs, e.g. --k 5 10 20.")] = None,
    after_sleep: AfterSleepOption = False,
    json_out: JsonOutOption = None,
    config: ConfigOption = None,
) -> None:
    """Turn-level evidence recall@k on LoCoMo (categories 1-4): mnemo vs BM25 vs plain hybrid."""
    from mnemo.eval.locomo import evaluate, format_table
    from ontology import load_ontology

    extra = list(ctx.args)
    if any(not a.isdigit() for a in extra):
        fail(f"unexpected arguments {extra}: cut-offs are whole numbers, e.g. --k 5 10 20")
    cutoffs = tuple(sorted(set((k or []) + [int(a) for a in extra]))) or (5, 10, 20)
    _report(config, json_out, format_table, lambda embedder: evaluate(
        file, embedder, load_ontology(), ks=cutoffs, after_sleep=after_sleep, progress=_progress))


@eval_app.command("notes")
def eval_notes(
    qa: Annotated[
        Path, typer.Argument(help="Questions as JSON lines: question, gold (note paths in the vault), kind.")
    ],
    vault: Annotated[Path, typer.Option("--vault", help="The vault or graph folder the questions are about.")],
    kind: Annotated[str, typer.Option("--kind", help="obsidian or logseq.")],
    after_sleep: AfterSleepOption = False,
    json_out: JsonOutOption = None,
    config: ConfigOption = None,
) -> None:
    """Note-level recall (hit@k over distinct notes, MRR, by question kind) against BM25 over whole notes."""
    from mnemo.eval.notes import evaluate_notes, format_notes_table
    from ontology import load_ontology

    if kind not in ("obsidian", "logseq"):
        fail(f"unknown --kind {kind!r}: use obsidian or logseq")
    _report(config, json_out, format_notes_table, lambda embedder: evaluate_notes(
        qa, vault, kind, embedder, load_ontology(), after_sleep=after_sleep, progress=_progress),  # type: ignore[arg-type]
        _vault_source(vault, kind))


@eval_app.command("links")
def eval_links(
    vault: Annotated[Path, typer.Option("--vault", help="The vault or graph folder (read, never written).")],
    kind: Annotated[str, typer.Option("--kind", help="obsidian or logseq.")],
    seed: Annotated[int, typer.Option("--seed", help="Which links are hidden.")] = 0,
    json_out: JsonOutOption = None,
    config: ConfigOption = None,
) -> None:
    """Related notes as link prediction: hide 20 % of the vault's links, then recall@5 and precision of
    mnemo's related notes against nearest notes by embedding."""
    from mnemo.eval.links import evaluate_links, format_links_table
    from ontology import load_ontology

    if kind not in ("obsidian", "logseq"):
        fail(f"unknown --kind {kind!r}: use obsidian or logseq")
    _report(config, json_out, format_links_table, lambda embedder: evaluate_links(
        vault, kind, embedder, load_ontology(), seed=seed, progress=_progress),  # type: ignore[arg-type]
        _vault_source(vault, kind))


def register(app: typer.Typer) -> None:
    """Add `eval` and its subcommands to the `mnemo` app."""
    app.add_typer(eval_app, name="eval")
