"""Salience over simulated days, progressive summaries, and the sleep-mode job with its checks."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import pytest
import yaml

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import run_profile, run_salience, run_summaries
from mnemo.sleep.merges import sync_graph
from mnemo.sleep.salience import read_salience, record_access, strength
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.summaries import read_summaries
from mnemo.stores.graph import GraphStore
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.jobs import NAMESPACE_TAG
from mnemo_dagster.resources import default_resources
from tests.support import Workspace, make_workspace

T0 = datetime(2026, 11, 21, 3, tzinfo=UTC)
SETTINGS = SleepConfig()


def _journal_chunk(workspace: Workspace, day: str) -> str:
    rows = workspace.graph().query(
        "MATCH (n:Note)-[:HAS_CHUNK]->(c:Chunk)-[:MENTIONS]->(:Entity) WHERE n.day = $day RETURN c.id AS id ORDER BY c.position",
        {"day": day})
    return rows[0]["id"]


def test_decay_reinforcement_fading_and_promotion_over_simulated_days(workspace: Workspace) -> None:
    workspace.ingest()
    files, graph, root = workspace.files(), workspace.graph(), workspace.files().root
    chunk = _journal_chunk(workspace, "2026-11-20")
    run_salience(files, SETTINGS, T0)
    start = read_salience(root)
    assert start["person_alice_chen"]["retention"] == 1.0 and not start[chunk]["faded"]

    for day in (1, 4, 12):
        record_access(root, ["person_alice_chen", chunk], "recall", T0 + timedelta(days=day))
    for day in (10, 40, 100):
        run_salience(files, SETTINGS, T0 + timedelta(days=day))
        scores = read_salience(root)
        if day == 40:
            assert scores["person_alice_chen"]["strength"] > scores["person_bob_martins"]["strength"]
            assert scores["person_alice_chen"]["retention"] > scores["person_bob_martins"]["retention"]
    quiet = [i for i, r in scores.items() if r["item_kind"] == "chunk" and r["accesses"] == 0]
    assert quiet and all(scores[i]["faded"] for i in quiet)
    assert scores[chunk]["retention"] > max(scores[i]["retention"] for i in quiet)
    assert scores[chunk]["accesses"] == 3
    assert all(0.0 <= r["score"] <= 1.0 for r in scores.values())

    sync_graph(files, graph)
    promoted = graph.query("MATCH (c:Chunk {id: $id})-[:PROMOTED_TO]->(e:Entity) RETURN e.id AS id", {"id": chunk})
    assert promoted
    faded_in_graph = graph.query("MATCH (s:Salience)-[:SALIENCE_OF]->(c:Chunk) WHERE s.faded RETURN count(c) AS n")[0]["n"]
    assert faded_in_graph == len(quiet)


def test_strength_grows_more_after_a_long_gap() -> None:
    early = strength(T0, [T0 + timedelta(days=1)])[0]
    late = strength(T0, [T0 + timedelta(days=60)])[0]
    assert late > early > strength(T0, [])[0]


def test_progressive_summaries_and_a_versioned_self_profile(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    files = workspace.files()
    now = datetime(2026, 11, 22, 3, tzinfo=UTC)
    settings = SleepConfig(week_after_days=14, month_after_days=30)
    first = run_summaries(files, settings, now)
    rows = SleepFiles(files.root).read_overlay("summaries").nodes["Summary"]
    assert first.days == 14 and first.months == 1 and first.weeks >= 4  # 13 journal days and `Porto weekend` (date: 2026-11-07)
    assert rows["summary_month_2026-09"]["eager"] and not rows["summary_day_2026-09-01"]["eager"]
    assert rows["summary_day_2026-11-20"]["eager"]
    assert all(r["sources"] and r["text"] for r in rows.values())
    eager = read_summaries(files.root, eager_only=True)
    assert eager[0]["id"] == "summary_month_2026-09" and "summary_day_2026-09-01" not in {r["id"] for r in eager}
    assert len(read_summaries(files.root)) == len(rows) > len(eager)
    again = run_summaries(files, settings, now)
    assert again.made == 0 and again.reused == first.made

    first_profile = run_profile(files, "Sam Rivera", now)
    assert first_profile is not None and (first_profile.entity, first_profile.version) == ("person_sam_rivera", 1)
    note = vault / "People" / "Sam Rivera.md"
    note.write_text(note.read_text(encoding="utf-8").replace("role: Software engineer", "role: Staff engineer"), encoding="utf-8")
    workspace.ingest()
    second_profile = run_profile(files, "Sam Rivera", now + timedelta(days=1))
    assert second_profile is not None and second_profile.version == 2 and second_profile.changed
    versions = SleepFiles(files.root).read_overlay("profile").nodes["SelfProfile"]
    assert [(v["version"], v["is_current"]) for v in sorted(versions.values(), key=lambda v: v["version"])] == [(1, False), (2, True)]
    assert "role: Staff engineer" in versions["profile_person_sam_rivera_v2"]["text"]
    assert "role: Software engineer" in versions["profile_person_sam_rivera_v1"]["text"]
    assert "works at: Acme Robotics" in versions["profile_person_sam_rivera_v2"]["text"]


def test_sleep_mode_job_runs_and_its_checks_pass(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace.ingest()
    defs = build_defs(default_resources(str(workspace.config_path)))
    openings, real = [], GraphStore._open
    monkeypatch.setattr(GraphStore, "_open", lambda store, read_only: openings.append(read_only) or real(store, read_only))
    result = defs.resolve_job_def("sleep_mode_job").execute_in_process(
        partition_key="test", instance=workspace.instance, tags={"mnemo/now": "2026-11-22T03:00:00+00:00"})
    assert result.success
    checks = [e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    assert len(checks) == 5 and all(c.passed for c in checks)
    assert openings == [False]  # the sync and the checks share one opening of the graph
    assert workspace.metadata(result, "self_profile")["self"] == "(no self entity found)"
    picture = Path(str(workspace.metadata(result, "salience_scores")["distribution"]))
    assert picture.read_bytes().startswith(b"\x89PNG")
    communities = workspace.metadata(result, "entity_communities")
    assert communities["communities"] >= 2 and communities["modularity"] > 0
    schedule = defs.resolve_schedule_def("nightly_sleep_schedule")
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("0 3 * * *", "UTC")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("namespace", ["test", "other"])
        requests = schedule(dg.build_schedule_context(instance=instance, scheduled_execution_time=T0))
    assert [(r.partition_key, r.run_key) for r in requests] == [("other", "sleep-other-2026-11-21"), ("test", "sleep-test-2026-11-21")]
    assert [r.tags[NAMESPACE_TAG] for r in requests] == ["other", "test"]  # one run per namespace at a time


def test_a_sleep_check_runs_alone_and_fails_on_bad_data(workspace: Workspace) -> None:
    workspace.ingest()
    defs = build_defs(default_resources(str(workspace.config_path)))
    tags = {"mnemo/now": "2026-11-22T03:00:00+00:00"}
    assert defs.resolve_job_def("sleep_mode_job").execute_in_process(partition_key="test", instance=workspace.instance, tags=tags).success
    path = SleepFiles(workspace.files().root).root / "overlay" / "salience.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["nodes"]["Salience"][0]["score"] = 1.5  # as a hand edit might leave it
    path.write_text(json.dumps(data), encoding="utf-8")
    key = dg.AssetCheckKey(dg.AssetKey("salience_scores"), "salience_in_range")
    job = dg.define_asset_job("one_check", selection=dg.AssetSelection.checks(key))  # every known namespace
    result = dg.Definitions.merge(defs, dg.Definitions(jobs=[job])).resolve_job_def("one_check").execute_in_process(
        instance=workspace.instance, tags=tags, raise_on_error=False)
    checks = [e.event_specific_data for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"]
    assert [(c.check_name, c.passed) for c in checks] == [("salience_in_range", False)]
    assert checks[0].metadata["problems"].value == 1 and "examples" not in checks[0].metadata  # counts, no ids
    assert not result.get_asset_materialization_events()  # no consolidation ran


def test_schedule_takes_cron_and_timezone_from_the_config(workspace: Workspace) -> None:
    data = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    data["sleep"] = {"cron": "30 2 * * *", "timezone": "Europe/Lisbon"}
    workspace.config_path.write_text(yaml.safe_dump(data), encoding="utf-8")
    schedule = build_defs(default_resources(str(workspace.config_path))).resolve_schedule_def("nightly_sleep_schedule")
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("30 2 * * *", "Europe/Lisbon")


def test_day_summaries_cover_chat_turns_on_their_own_days(tmp_path: Path) -> None:
    texts = tmp_path / "texts.jsonl"
    filler = " We could also walk along the river and find somewhere quiet for dinner." * 12
    turns = [  # long enough for a chunk each
        {"conversation": "porto", "speaker": "Dana Kim", "text": "Are we still on for the Porto weekend trip?" + filler, "timestamp": "2026-09-04T19:00:00Z"},
        {"conversation": "porto", "speaker": "Sam", "text": "Yes, I booked the early train on Friday morning." + filler, "timestamp": "2026-09-05T08:02:00Z"},
    ]
    texts.write_text("\n".join(json.dumps(t) for t in turns), encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "jsonl", "path": str(texts)}]})
    workspace.ingest()
    stats = run_summaries(workspace.files(), SETTINGS, datetime(2026, 9, 10, tzinfo=UTC))
    rows = SleepFiles(workspace.files().root).read_overlay("summaries").nodes["Summary"]
    assert stats.days == 2
    assert "Porto weekend" in rows["summary_day_2026-09-04"]["text"] and "train" not in rows["summary_day_2026-09-04"]["text"]
    assert "early train" in rows["summary_day_2026-09-05"]["text"]
