"""Re-running sleep mode does work in proportion to what changed: overlays reused row by row,
Leiden and PageRank skipped while the entity graph is the same, salience rows left alone while
only time moved them a little, and a sync of sleep mode's own tables that still leaves the whole
graph canonical."""

from datetime import datetime, timedelta, timezone
from pathlib import Path

from conftest import Workspace
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.merges import sync_graph
from mnemo.sleep.salience import SCORE_EPSILON, read_salience, retention_at
from mnemo.sleep.settings import SleepConfig
from mnemo.sleep.store import SleepFiles

T0 = datetime(2026, 11, 21, 3, tzinfo=timezone.utc)


def test_rerun_work_follows_what_changed(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    files, graph, settings = workspace.files(), workspace.graph(), SleepConfig()
    first = consolidate(files, graph, settings, T0)
    assert first.graph_writes > 0 and first.communities.summarized > 0
    stored = read_salience(files.root)
    state = SleepFiles(files.root).read_state("communities")

    night = consolidate(files, graph, settings, T0 + timedelta(days=1))
    after = read_salience(files.root)
    rewritten = [i for i in after if after[i] != stored[i]]
    assert night.graph_writes == len(rewritten)  # nothing but salience rows that moved is written
    assert night.communities.summarized == 0 and night.summaries.made == 0
    assert SleepFiles(files.root).read_state("communities") == state  # Leiden's result reused
    for item, row in after.items():
        if item not in rewritten:
            assert abs(row["retention"] - retention_at(row, T0 + timedelta(days=1))) < SCORE_EPSILON
    assert sync_graph(files, graph).writes == 0  # the graph is what a full sync would make it

    note = vault / "Daily" / "2026-11-08.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nA long walk by the river.\n", encoding="utf-8")
    workspace.ingest()
    changed = consolidate(files, graph, settings, T0 + timedelta(days=1, hours=1))
    assert changed.summaries.made >= 1 and changed.summaries.made <= 3  # the day, and its week/month if closed
    assert SleepFiles(files.root).read_state("communities") == state  # same entity graph: Leiden not re-run
    assert changed.communities.summarized < first.communities.summarized
    assert sync_graph(files, graph).writes == 0
