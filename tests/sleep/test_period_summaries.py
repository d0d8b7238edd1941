"""Sleep mode summarizes the periods of notes dated by what their owner wrote (a `created:`
property, a zettel or Unix-time id in the name), not only journal days; an undated note is in no
period; recall answers a period question with the notes and that summary."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.store import SleepFiles
from tests.support import Workspace, make_workspace

NOW = datetime(2026, 11, 21, 3, tzinfo=UTC)
FEBRUARY = {  # no journal: dated by a property, a zettel id, a Unix-time id (2024-02-01)
    "Huerto.md": "---\ncreated: 2024-02-10\n---\nEl huerto tendrá tres bancales elevados junto al muro del sur.\n",
    "202402141030 Riego.md": "El riego por goteo ahorra la mitad del agua que gastaba la manguera.\n",
    "1706782930-grafo.md": "Un grafo de notas enlazadas muestra qué ideas del huerto se tocan entre sí.\n",
}
UNDATED = {"Semillas.md": "Las semillas de tomate se guardan secas en sobres de papel dentro del huerto.\n"}


@pytest.fixture
def slept(tmp_path: Path) -> Workspace:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in {**FEBRUARY, **UNDATED}.items():
        (vault / name).write_text(text, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), NOW)
    return workspace


def _summaries(workspace: Workspace) -> dict[str, dict]:
    return SleepFiles(workspace.files().root).read_overlay("summaries").nodes.get("Summary", {})


def _paths_of(workspace: Workspace, chunk_ids: list[str]) -> set[str]:
    rows = workspace.graph().query(
        "MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE c.id IN $ids RETURN n.path AS path", {"ids": chunk_ids})
    return {r["path"] for r in rows}


def test_the_month_summary_carries_the_notes_dated_in_it(slept: Workspace) -> None:
    rows = _summaries(slept)
    month = rows["summary_month_2024-02"]
    assert month["eager"] and (month["period_start"], month["period_end"]) == ("2024-02-01", "2024-02-29")
    assert _paths_of(slept, list(month["sources"])) == set(FEBRUARY)
    assert "bancales elevados" in month["text"] and "riego por goteo" in month["text"]
    assert {"summary_day_2024-02-01", "summary_day_2024-02-10", "summary_day_2024-02-14"} <= set(rows)
    cited = {c for row in rows.values() for c in row["sources"]}
    assert "Semillas.md" not in _paths_of(slept, sorted(cited))  # an undated note is in no period


def test_a_rerun_of_sleep_makes_no_new_summary(slept: Workspace) -> None:
    before = _summaries(slept)
    assert "summary_month_2024-02" in before
    stats = consolidate(slept.files(), slept.graph(), SleepConfig(), NOW)
    assert _summaries(slept) == before
    assert stats.summaries is not None
    assert stats.summaries.made == 0 and stats.summaries.reused == len(before)


def test_a_period_question_gets_the_summary_beside_the_notes(slept: Workspace) -> None:
    client = MemoryClient("test", slept.config_path, settings=RecallSettings(random_share=0.0))
    items = client.recall("¿Qué escribí sobre el huerto en febrero de 2024?", k=5).items
    assert {i.path for i in items if i.kind == "chunk"} >= set(FEBRUARY)
    [summary] = [i for i in items if i.kind == "summary"]
    assert summary.metadata["period"] == "2024-02" and "period summary" in summary.reasons
    assert set(summary.metadata["source_paths"]) == set(FEBRUARY)
