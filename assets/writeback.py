"""The write-back asset: insights from the graph written into the notes as mnemo-* properties."""

import dagster as dg

from mnemo_dagster.assets.ingest import GRAPH_POOL, entity_graph, namespaces
from mnemo_dagster.assets.sleep import run_time
from mnemo_dagster.resources import NoteWriterResource

GROUP = "writeback"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _skipped_table(skipped: list[tuple[str, str]]) -> str:
    if not skipped:
        return "_none_"
    rows = ["| note | reason |", "|---|---|"]
    rows += [f"| {_cell(p)} | {_cell(r)} |" for p, r in skipped[:50]]
    return "\n".join(rows)


# after sleep mode when it runs: the community, week, month and profile pages are built from what it made
_AFTER: list[dg.AssetsDefinition | str] = [entity_graph, "entity_communities", "episodic_summaries", "self_profile"]


@dg.asset(partitions_def=namespaces, group_name=GROUP, kinds={"python", "markdown"}, deps=_AFTER, pool=GRAPH_POOL)
def note_writeback(context: dg.AssetExecutionContext, note_writer: NoteWriterResource) -> dg.MaterializeResult:
    """What notes do not say yet written into them as mnemo-* properties; generated pages rebuilt (undoable)."""
    today = run_time(context).date().isoformat()  # the run's clock, as sleep mode's: a replay writes the same day
    plan, report = note_writer.write_back(context.partition_key, context.run_id, today)
    for skip in report.skipped:
        context.log.warning(f"{skip.path}: {skip.reason} (not written)")
    return dg.MaterializeResult(metadata={
        "written": len(report.written),
        "pages": len(report.pages),
        "unchanged": plan.unchanged,
        "opted_out": plan.opted_out,
        "excluded": plan.excluded,
        "skipped": len(report.skipped),
        "undo": f"mnemo writeback --namespace {context.partition_key} --undo {report.run}",
        "skipped_notes": dg.MetadataValue.md(_skipped_table([(s.path, s.reason) for s in report.skipped])),
        "diff": f"mnemo writeback --namespace {context.partition_key} --dry-run",  # the text stays out of run history
    })


writeback_assets = [note_writeback]
