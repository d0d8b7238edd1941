"""Recall and sleep mode on real stores: recalls and lookups are logged as accesses, eager recall
ranks faded passages lower but still returns them, adds summaries beside the passages they were
made from (never instead of them), deliberate recall keeps the detail and adds period and community
summaries, and top of mind comes with eager recall."""

from datetime import UTC, datetime, timedelta

from mnemo.config import SleepConfig
from mnemo.recall.results import RecalledItem
from mnemo.recall.sleep_overlay import SleepView, eager_ranked
from mnemo.sleep.consolidate import consolidate, run_salience, run_summaries
from mnemo.sleep.salience import read_salience
from mnemo.sleep.store import SleepFiles, read_jsonl
from tests.support import Workspace
from tests.support import steady_client as _client

T0 = datetime(2026, 11, 21, 3, tzinfo=UTC)
SETTINGS = SleepConfig()
QUERY = "FSRS-style scheduler experiment exported reviews"


def _daily_chunk(workspace: Workspace) -> str:
    rows = workspace.graph().query(
        "MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk) WHERE n.day = '2026-11-20' AND c.text CONTAINS 'FSRS' RETURN c.id AS id")
    return rows[0]["id"]


def test_recalls_and_lookups_are_logged_and_reinforce(workspace: Workspace) -> None:
    workspace.ingest()
    client, root = _client(workspace), workspace.files().root
    result = client.recall(QUERY, k=5)
    client.get_entity("person_id:alice_chen")
    log = read_jsonl(SleepFiles(root).access_log)
    recalled = {r["id"] for r in log if r["kind"] == "recall"}
    chunks = {i.id for i in result.items if i.kind == "chunk"}
    assert chunks and chunks <= recalled
    assert {"person_alice_chen"} == {r["id"] for r in log if r["kind"] == "lookup"}
    assert result.grounding and all(ref.split("_id:")[0] + "_" + ref.split("_id:")[1] in recalled for ref in result.grounding)
    run_salience(workspace.files(), SETTINGS, datetime.now(UTC) + timedelta(minutes=1))
    scores = read_salience(root)
    assert scores["person_alice_chen"]["accesses"] >= 1
    assert all(scores[c]["accesses"] == 1 for c in chunks if c in scores)


def test_a_faded_passage_ranks_lower_but_still_comes_back(workspace: Workspace) -> None:
    workspace.ingest()
    files, client = workspace.files(), _client(workspace)
    chunk = _daily_chunk(workspace)
    before = next(i for i in client.recall(QUERY, k=5).items if i.id == chunk)  # before sleep mode: found by eager recall
    run_summaries(files, SETTINGS, T0)  # 2026-11-20 is too recent for a week summary
    run_salience(files, SETTINGS, T0)
    run_salience(files, SETTINGS, T0 + timedelta(days=100))
    assert read_salience(files.root)[chunk]["faded"]
    after = next(i for i in client.recall(QUERY, k=5).items if i.id == chunk)
    assert "faded" in after.reasons and after.score < before.score
    assert chunk in {i.id for i in client.recall(QUERY, k=5, mode="deliberate").items}


def test_summaries_add_to_old_periods_and_hide_nothing(workspace: Workspace) -> None:
    workspace.ingest()
    files, client = workspace.files(), _client(workspace)
    chunk = _daily_chunk(workspace)
    consolidate(files, workspace.graph(), SETTINGS, T0 + timedelta(days=100))  # November 2026 is 90+ days old

    eager = client.recall(QUERY, k=5)
    ids = [i.id for i in eager.items]
    assert len(ids) == 5 and chunk in ids
    month = next(i for i in eager.items if i.id == "summary_month_2026-11")
    assert ids.index(chunk) < ids.index(month.id) and "summary of matches" in month.reasons
    assert month.metadata["covers"] == {"start": "2026-11-01", "end": "2026-11-30"}
    assert chunk in month.metadata["sources"] and chunk in month.metadata["matched"]
    assert month.path and month.path in month.metadata["source_paths"]
    assert set(month.metadata["source_paths"]) <= {d.path for d in files.read_documents()}
    assert month.text and month.text in eager.text
    top = {i for i, r in read_salience(files.root).items() if r["top_of_mind"]}
    assert top and set(eager.top_of_mind) == top

    deliberate = client.recall(QUERY, k=5, mode="deliberate")
    kinds = {i.id: i.kind for i in deliberate.items}
    assert kinds.get(chunk) == "chunk"
    assert {"summary_month_2026-11", "summary_week_2026-W47", "summary_day_2026-11-20"} <= set(kinds)
    assert "community" in kinds.values() and not deliberate.top_of_mind
    assert all(i.path and i.metadata["source_paths"] for i in deliberate.items if i.kind == "summary")


def test_the_passages_a_summary_cites_rank_with_it() -> None:
    # "my theme project, and the meeting with someone from that company" (kepano): the month's
    # summary cites the theme note and the meeting; the meeting ranked below the summary and out of the ten
    month = {"id": "summary_month_2023-09", "level": "month", "period": "2023-09", "text": "September: ...",
             "period_start": "2023-09-01", "period_end": "2023-09-30", "eager": True,
             "sources": ["theme", "meeting"]}
    view = SleepView({}, [month], {}, {})
    scores = {"obsidian": 9.0, "theme": 6.0, "hub": 4.5, "meeting": 4.0, "other": 3.9}
    items = [RecalledItem(i, "chunk", i, score) for i, score in scores.items()]
    ranked = [i.id for i in eager_ranked(view, items)]
    assert ranked == ["obsidian", "theme", "meeting", "summary_month_2023-09", "hub", "other"]
