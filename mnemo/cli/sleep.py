"""`mnemo sleep`, `mnemo compact`, `mnemo merges`, `mnemo unmerge` and `mnemo review ...`: sleep mode from the CLI."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from mnemo.cli.options import ConfigOption, JsonOption, NamespaceOption, fail, namespace_of, print_json
from mnemo.cli.tables import fitting_table
from mnemo.errors import MnemoError

if TYPE_CHECKING:  # the stores (Kùzu, LanceDB, polars) load when a command runs, not with --help
    from mnemo.maintenance.compaction import Compaction
    from mnemo.sleep.consolidate import SleepReport
    from mnemo.stores.files import NamespaceFiles
    from mnemo.stores.graph import GraphStore

console = Console()
review_app = typer.Typer(help="Inspect, accept or reject uncertain duplicate pairs.", no_args_is_help=True)



def _files(config: Path | None, namespace: str) -> "NamespaceFiles":
    from mnemo.config import load_config
    from mnemo.stores.files import NamespaceFiles

    return NamespaceFiles(load_config(config).data_root(namespace), namespace)


def _table(title: str, columns: list[str], rows: list[list[str]]) -> Table:
    return fitting_table(title, columns, rows, whole=("merge id", "id", "score", "status"))


def _graph(config: Path | None, files: "NamespaceFiles") -> "GraphStore":
    """The namespace's graph, on the configured engine."""
    from mnemo.config import load_config
    from mnemo.stores.graph import GraphStore
    from ontology import load_ontology

    return GraphStore(files.graph_path, load_ontology(), engine=load_config(config).graph.engine)


def _resync(files: "NamespaceFiles", config: Path | None) -> int:
    """Bring the graph in line with the merge log (waits briefly for the graph lock)."""
    from mnemo.sleep.merges import sync_graph

    if not files.graph_path.exists():
        return 0
    return sync_graph(files, _graph(config, files)).writes


def sleep(namespace: NamespaceOption = None, config: ConfigOption = None,
          as_json: JsonOption = False) -> None:
    """Run sleep mode now: dedup, communities, summaries, salience, self profile, then compaction.

    The graph and vector stores are compacted when they have grown enough since their last compaction."""
    from mnemo.client import MemoryClient
    from mnemo.config import load_config
    from mnemo.ingest.embedder_choice import namespace_embedder_settings
    from mnemo.ingest.pipeline import entity_rows
    from mnemo.maintenance.compaction import compact_stores
    from mnemo.sleep.abstractive import writer_for
    from mnemo.sleep.consolidate import consolidate
    from mnemo.sleep.merges import canonical_entities
    from mnemo.stores.embedders import build_embedder
    from mnemo.stores.files import NamespaceFiles
    from mnemo.stores.forget_journal import pending_forget
    from mnemo.stores.vectors import VectorStore

    namespace = namespace_of(namespace, config)
    try:
        settings = load_config(config)
        files = NamespaceFiles(settings.data_root(namespace), namespace)
        if not (files.root / "facts").exists():
            raise MnemoError(f"namespace {namespace!r} has no extractions yet (run the ingest job first)")
        if pending_forget(files.root) is not None:  # a forget cut off is finished first: nothing of it comes back
            MemoryClient(namespace, settings).finish_forget()
        graph, vectors = _graph(config, files), VectorStore(files.vectors_path)
        report = consolidate(files, graph, settings.sleep,
                             datetime.now(UTC), settings.namespace(namespace).self_name, vectors,
                             writer=writer_for(settings.llm, settings.sleep.llm))
        if report.dedup and report.dedup.merges:  # the merged entities' vectors, as the sleep asset makes them again
            embedder = build_embedder(namespace_embedder_settings(settings, files.root))
            vectors.sync("entities", entity_rows(canonical_entities(files)), embedder)
        compaction = compact_stores(files, graph, vectors, settings.sleep.compact_growth)
    except MnemoError as exc:
        fail(str(exc))
    data = {**report.to_dict(), "compaction": compaction.to_dict()}
    console.print_json(json.dumps(data, default=str)) if as_json else console.print(
        _report_line(report) + "; " + _compaction_line(compaction)
    )


def _report_line(report: "SleepReport") -> str:
    """What each step that ran did, and the graph writes."""
    done = []
    if report.dedup is not None:
        done.append(f"merged {len(report.dedup.merges)}, review queue {report.dedup.queue_size}")
    if report.communities is not None:
        found = report.communities
        done.append(f"communities {found.communities} (modularity {found.modularity}; {found.below_floor} below the "
                    f"cohesion floor, not written into notes), abstractions {found.concepts}")
    if report.summaries is not None:
        done.append(f"summaries made {report.summaries.made} / reused {report.summaries.reused}")
    if report.salience is not None:
        done.append(f"faded {report.salience.faded}, promoted {report.salience.promoted}")
    return ", ".join([*done, f"graph writes {report.graph_writes}"])


def _compaction_line(done: "Compaction") -> str:
    mb = 1024 * 1024
    graph = (
        f"graph rebuilt: {done.size / mb:.1f} MB -> {done.size_after / mb:.1f} MB in {done.seconds:.1f} s"
        if done.rebuilt
        else f"graph {done.size / mb:.1f} MB, {done.growth:.2f} x its size after the last rebuild"
    )
    tables = "".join(
        f"; {name} compacted: {before} -> {after} fragments" for name, (before, after) in done.tables.items()
    )
    return graph + tables


def compact(namespace: NamespaceOption = None, config: ConfigOption = None,
            as_json: JsonOption = False) -> None:
    """Rebuild the graph from the memory files and compact the vector tables, now (waits for running writers)."""
    from mnemo.maintenance.compaction import compact_stores
    from mnemo.stores.vectors import VectorStore

    namespace = namespace_of(namespace, config)
    try:
        files = _files(config, namespace)
        if not files.graph_path.exists():
            raise MnemoError(f"namespace {namespace!r} has no graph yet (run the ingest job first)")
        done = compact_stores(files, _graph(config, files), VectorStore(files.vectors_path))
    except MnemoError as exc:
        fail(str(exc))
    console.print_json(json.dumps(done.to_dict())) if as_json else console.print(_compaction_line(done))


def merges(namespace: NamespaceOption = None, config: ConfigOption = None, as_json: JsonOption = False) -> None:
    """List the active merges (newest last) with their ids for `mnemo unmerge`."""
    from mnemo.sleep.merges import MergeLog
    from mnemo.sleep.store import SleepFiles

    namespace = namespace_of(namespace, config)
    try:
        active = MergeLog(SleepFiles(_files(config, namespace).root)).active()
    except MnemoError as exc:
        fail(str(exc))
    if as_json:
        print_json([m.to_dict() for m in active])
        return
    rows = [[m.merge_id, m.canonical, m.merged, f"{m.score:.2f}", m.decided_by, m.at] for m in active]
    console.print(_table(f"merges in {namespace}", ["merge id", "canonical", "merged", "score", "by", "at"], rows)
                  if active else "No active merges.")


def unmerge(
    target: Annotated[
        str, typer.Argument(help="A merge id, or an entity id to separate from everything merged with it.")
    ],
    namespace: NamespaceOption = None,
    config: ConfigOption = None,
) -> None:
    """Undo a merge: the entities are separate again, exactly as extracted, and stay apart."""
    from mnemo.sleep.merges import MergeLog
    from mnemo.sleep.store import SleepFiles

    namespace = namespace_of(namespace, config)
    try:
        files = _files(config, namespace)
        undone = MergeLog(SleepFiles(files.root, files.session)).unmerge(target, reason="mnemo unmerge")
        writes = _resync(files, config)
    except MnemoError as exc:
        fail(str(exc))
    for m in undone:
        console.print(f"unmerged {m.merged} from {m.canonical} ({m.merge_id})")
    console.print(f"graph writes: {writes}")


@review_app.command("list")
def review_list(namespace: NamespaceOption = None, config: ConfigOption = None,
                show_all: Annotated[bool, typer.Option("--all", help="Also show decided items.")] = False,
                as_json: JsonOption = False) -> None:
    """Show the pairs waiting for a decision."""
    from mnemo.sleep.resolve import read_review_queue
    from mnemo.sleep.store import SleepFiles

    namespace = namespace_of(namespace, config)
    try:
        queue = read_review_queue(SleepFiles(_files(config, namespace).root))
    except MnemoError as exc:
        fail(str(exc))
    shown = [q for q in queue if show_all or q["status"] == "pending"]
    if as_json:
        print_json(shown)
        return
    rows = [[q["id"], q["a"], q["b"], f"{q['score']:.2f}", q.get("reason") or ", ".join(q["reasons"]), q["status"]]
            for q in shown]
    console.print(_table(f"review queue of {namespace}", ["id", "a", "b", "score", "why", "status"], rows))


def _decide(item_id: str, namespace: str, config: Path | None, accept: bool) -> None:
    from mnemo.sleep.resolve import decide_review

    try:
        files = _files(config, namespace)
        item = decide_review(files, item_id, accept)
        writes = _resync(files, config) if accept else 0
    except MnemoError as exc:
        fail(str(exc))
    console.print(f"{item['status']}: {item['a']} / {item['b']}" + (f" (graph writes: {writes})" if accept else ""))


@review_app.command("accept")
def review_accept(item_id: Annotated[str, typer.Argument(help="The review item id.")],
                  namespace: NamespaceOption = None, config: ConfigOption = None) -> None:
    """Merge the pair (logged; undo with `mnemo unmerge`)."""
    namespace = namespace_of(namespace, config)
    _decide(item_id, namespace, config, True)


@review_app.command("reject")
def review_reject(item_id: Annotated[str, typer.Argument(help="The review item id.")],
                  namespace: NamespaceOption = None, config: ConfigOption = None) -> None:
    """Keep the pair apart; it is not proposed again."""
    namespace = namespace_of(namespace, config)
    _decide(item_id, namespace, config, False)


def register(app: typer.Typer) -> None:
    """Add the sleep-mode commands to the `mnemo` app."""
    app.command("sleep")(sleep)
    app.command("compact")(compact)
    app.command("merges")(merges)
    app.command("unmerge")(unmerge)
    app.add_typer(review_app, name="review")
