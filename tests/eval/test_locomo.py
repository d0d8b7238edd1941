"""The LoCoMo source and the evaluation's code path, on a tiny LoCoMo-shaped file."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.errors import SourceError
from mnemo.eval.locomo import evaluate, evidence_ids, format_table, questions_of, recall_at
from mnemo.ingest.segments import chunk_segments
from mnemo.sources.locomo import parse_date_time, parse_locomo
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology
from tests.support import DATA, corpus

TINY = DATA / "locomo_tiny.json"


def test_sessions_become_documents_and_turns_become_chunks_with_dia_ids() -> None:
    docs = parse_locomo(TINY.read_text(), namespace="t", source="locomo:x", rel_path="tiny.json", modified=None)
    assert [d.title for d in docs] == ["Rosa and Teo, session 1", "Rosa and Teo, session 2"]
    assert docs[0].created == "2024-03-03T09:05:00" and docs[0].kind == "chat"
    chunks = chunk_segments(docs[0], 180)
    assert [c.metadata["dia_id"] for c in chunks] == ["D1:1", "D1:2", "D1:3", "D1:4"]
    assert chunks[2].text == "Rosa: Her name is Pimenta, she is very shy."
    assert chunks[3].text.endswith("[shares an image: a photo of a blue ceramic bowl on a wheel]")
    assert chunks[1].prev_id == chunks[0].id and chunks[1].next_id == chunks[2].id
    assert all(c.timestamp == "2024-03-03T09:05:00" for c in chunks)
    assert "qa" not in json.dumps([d.properties for d in docs])


@pytest.mark.parametrize("text, reason", [
    ("{not json", "invalid JSON at line 1"),
    ('[{"conversation": {"session_1": [{"speaker": 3}]}}]', "a turn needs string 'speaker' and 'text'"),
    ('[{"qa": []}]', "no 'conversation' mapping"),
    ('[{"conversation": {}}]', "no conversation sessions"),
])
def test_bad_files_fail_with_the_file_and_the_reason(text: str, reason: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_locomo(text, namespace="t", source="s", rel_path="bad.json", modified=None)
    assert caught.value.path == "bad.json" and reason in caught.value.reason


def test_dates_and_evidence_ids() -> None:
    assert parse_date_time("12:09 am on 13 September, 2023") == "2023-09-13T00:09:00"
    assert parse_date_time("sometime in spring") is None
    assert evidence_ids(["D8:6; D9:17", "D", "D:11:26"]) == ["D8:6", "D9:17", "D11:26"]
    assert recall_at(["D1:1", "D1:1", "D2:2", "D3:3"], ["D2:2", "D3:3"], 2) == 0.5
    questions = questions_of(json.loads(TINY.read_text())[0])
    assert len(questions) == 5 and {q.category for q in questions} == {1, 2, 3, 4}


def test_the_evaluation_runs_through_the_real_pipeline() -> None:
    report = evaluate(TINY, HashingEmbedder(384), load_ontology(), ks=(1, 3))
    assert report["questions"] == 5
    assert set(report["systems"]) == {"mnemo", "bm25", "hybrid"}
    for figures in report["systems"].values():
        assert set(figures["overall"]) == {"R@1", "R@3"} and set(figures["by_category"]) == {"1", "2", "3", "4"}
        assert figures["overall"]["R@1"] <= figures["overall"]["R@3"] <= 1
    assert report["systems"]["bm25"]["by_category"]["4"]["R@3"] == 1.0
    assert report["latency"]["eager"]["p50_ms"] > 0 and report["latency"]["deliberate"]["p95_ms"] > 0
    assert "mnemo    all" in format_table(report)


def test_eval_command_writes_json(tmp_path: Path) -> None:
    config = tmp_path / "mnemo.yaml"
    config.write_text("embedder: {kind: hashing}\n")
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["eval", "locomo", str(TINY), "--k", "1", "3", "--json", str(out), "--config", str(config)])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["questions"] == 5 and set(data["systems"]["hybrid"]["overall"]) == {"R@1", "R@3"}
    bad = CliRunner().invoke(app, ["eval", "locomo", str(tmp_path / "missing.json"), "--config", str(config)])
    assert bad.exit_code == 2 and "missing.json" in bad.output


def test_dev_split_shape() -> None:
    path = corpus("locomo", "locomo_dev.json")
    conversations = json.loads(path.read_text())
    docs = [d for c in conversations for d in parse_locomo(json.dumps([c]), namespace="t", source="s", rel_path="dev.json", modified=None)]
    assert len(conversations) == 5 and len(docs) == 128
    assert sum(len(chunk_segments(d, 180)) for d in docs) == 2760
    assert sum(len(questions_of(c)) for c in conversations) == 760


def test_a_turn_keeps_the_dates_its_relative_phrases_mean() -> None:
    conversation = {"sample_id": "d", "conversation": {
        "speaker_a": "Rosa", "speaker_b": "Teo", "session_1_date_time": "9:05 am on 3 March, 2024",
        "session_1": [
            {"speaker": "Rosa", "dia_id": "D1:1", "text": "I ran my first 5k race last Saturday!"},
            {"speaker": "Teo", "dia_id": "D1:2", "text": "The last time I ran was ages ago."},
        ]}}
    doc = parse_locomo(json.dumps([conversation]), namespace="t", source="s", rel_path="d.json", modified=None)[0]
    first, second = chunk_segments(doc, 180)
    assert first.metadata["dates"] == [{"phrase": "last Saturday", "from": "2024-03-02", "to": "2024-03-02"}]
    assert "dates" not in second.metadata
