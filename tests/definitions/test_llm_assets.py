"""The llm_extractions asset in the real ingest job, against a loopback stub endpoint."""

import json
from pathlib import Path

import dagster as dg
import yaml

from mnemo.extract.prompt import PROMPT_VERSION
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources
from ontology import DEFAULT_PATH
from tests.support import Workspace
from tests.support.llm_stub import Reply, StubLLM, empty_reply

NOTES = {
    "People/Alice Chen.md": "---\ntype: person\naliases: [Ali]\n---\nEngineer, friend since university.\n",
    "Organizations/Acme.md": "---\ntype: organization\n---\nA robotics company in Lisbon.\n",
    "Lunch.md": "Lunch with Ali. She has worked at Tidewater since 2026-03-01 and loves it.\n",
}
TIDEWATER = {
    "entities": [
        {"id": "person_alice_chen", "kind": "person", "name": "Ali"},
        {"id": "organization_tidewater", "kind": "organization", "name": "Tidewater",
         "properties": [{"key": "industry", "value": "shipping", "since": None}]},
    ],
    "relations": [{"type": "works_at", "source": "person_alice_chen", "target": "organization_tidewater", "valid_from": "2026-03-01"}],
}


def _responder(request: dict) -> Reply:
    prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
    if "Tidewater" in prompt and '"id": "person_alice_chen"' in prompt:
        return Reply(arguments=TIDEWATER)
    return empty_reply(request)


def _workspace(root: Path, llm: dict | None) -> Workspace:
    vault = root / "vault"
    for name, text in NOTES.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text, encoding="utf-8")
    config = {"data_dir": str(root / "data"), "embedder": {"kind": "hashing"},
              "namespaces": {"test": {"sources": [{"kind": "obsidian", "path": str(vault)}]}}}
    if llm:
        config["llm"] = llm
    path = root / "mnemo.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return Workspace(root, path, dg.DagsterInstance.ephemeral())


def test_ingest_with_an_llm_adds_grounded_relations_and_reports_usage(tmp_path: Path) -> None:
    with StubLLM(responder=_responder) as stub:
        ws = _workspace(tmp_path, {"base_url": stub.url, "model": "stub-model", "input_cost_per_mtok": 1.0})
        first = ws.metadata(ws.ingest(), "llm_extractions")
        chunks = len(ws.files().read_chunks())
        assert first["requests"] == chunks + 1 == len(stub.requests)  # the probe, then one per chunk
        assert first["prompt_tokens"] == stub.prompt_tokens and first["extracted"] == chunks
        assert first["estimated_cost_usd"] == round(stub.prompt_tokens / 1e6, 6)
        again = ws.ingest()
        second = ws.metadata(again, "llm_extractions")
        assert ws.metadata(again, "entity_graph")["writes"] == 0
        assert second["requests"] == 0 and second["cached"] == chunks and len(stub.requests) == chunks + 1
    rows = ws.graph().query(
        "MATCH (a:Entity)-[r:WORKS_AT]->(b:Entity) RETURN a.id AS a, b.id AS b, r.extractor AS x, "
        "r.prompt_version AS p, r.valid_from AS v, b.origin AS origin, b.properties AS props"
    )
    assert [(r["a"], r["b"], r["x"], r["p"], r["v"], r["origin"]) for r in rows] == [
        ("person_alice_chen", "organization_tidewater", "llm", PROMPT_VERSION, "2026-03-01", "llm"),
    ]
    assert '"industry": {"chunk"' in rows[0]["props"] and '"value": "shipping"' in rows[0]["props"]


def test_without_llm_configuration_nothing_is_called_and_the_graph_is_structural(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, None)
    meta = ws.metadata(ws.ingest(), "llm_extractions")
    assert meta == {"configured": False, "requests": 0}
    extractors = ws.graph().query("MATCH ()-[r:MENTIONS]->() RETURN DISTINCT r.extractor AS x")
    assert [r["x"] for r in extractors] == ["structural"]


def test_reextraction_job_sends_only_chunks_an_ontology_change_affects(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_PATH.read_text(encoding="utf-8"))
    data["version"] = "test.2"
    data["relation_types"]["mentors"] = {
        "description": "The person mentors the other person.", "class": "semantic", "domain": ["person"], "range": ["person"],
    }
    changed = tmp_path / "ontology.yaml"
    changed.write_text(yaml.safe_dump(data), encoding="utf-8")
    with StubLLM(responder=_responder) as stub:
        ws = _workspace(tmp_path, {"base_url": stub.url, "model": "stub-model"})
        ws.ingest()
        before = len(stub.requests)
        defs = build_defs(default_resources(str(ws.config_path), str(changed)))
        result = defs.get_job_def("reextraction_job").execute_in_process(partition_key="test", instance=ws.instance)
    assert result.success
    meta = ws.metadata(result, "llm_extractions")
    assert len(stub.requests) - before == 2 and stub.prompts()[-1].endswith("loves it.")  # the probe, then Lunch.md
    assert (meta["extracted"], meta["carried_over"], meta["ontology_version"]) == (1, 2, "test.2")


def test_extraction_command_lists_cached_answers_and_pending_chunks(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from mnemo.cli.main import app

    def flaky(request: dict) -> Reply:
        prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
        return Reply(status=500) if "Tidewater" in prompt else empty_reply(request)

    with StubLLM(responder=flaky) as stub:
        ws = _workspace(tmp_path, {"base_url": stub.url, "model": "stub-model", "transient_retries": 1, "retry_wait": 0.01})
        meta = ws.metadata(ws.ingest(), "llm_extractions")
    assert meta["pending"] == 1 and meta["extracted"] == len(ws.files().read_chunks()) - 1
    result = CliRunner().invoke(app, ["extraction", "-n", "test", "--json", "--config", str(ws.config_path)])
    assert result.exit_code == 0, result.output
    state = json.loads(result.output)
    assert state["model"] == "stub-model" and state["cached"][0]["answers"] == meta["extracted"]
    assert [p["path"] for p in state["pending"]] == ["Lunch.md"] and "500" in state["pending"][0]["reason"]
    works_at = ws.graph().query("MATCH ()-[r:WORKS_AT]->() RETURN count(r) AS n")
    assert works_at == [{"n": 0}]  # the failed chunk kept only its structural facts
    mentions = ws.graph().query("MATCH (c:Chunk)-[m:MENTIONS]->(:Entity {id: 'person_alice_chen'}) RETURN m.method AS how")
    assert [m["how"] for m in mentions] == ["alias"]
