"""The HTTP API on a real uvicorn server on 127.0.0.1: keys, namespaces, limits, validation."""

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.serve.api_keys import KeyStore
from tests.support import Workspace, make_workspace

MAX_BODY = 4096
FUZZ_EXAMPLES = int(os.environ.get("MNEMO_FUZZ_EXAMPLES", "12"))  # per operation; raise it for a longer run


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(config: str, max_body: int = MAX_BODY) -> tuple[subprocess.Popen, str]:
    """`mnemo serve` in a child process. Its log goes to a file next to the config, never to an
    unread pipe: a full pipe would block the server on its next log line."""
    port = free_port()
    log = open(Path(config).with_name(f"serve-{port}.log"), "wb")  # noqa: SIM115 - the child owns it
    proc = subprocess.Popen([sys.executable, "-m", "mnemo.cli.main", "serve", "--config", config, "--port", str(port),
                             "--max-body", str(max_body)], env={**os.environ, "HF_HUB_OFFLINE": "1"},
                            stdout=log, stderr=subprocess.STDOUT)
    log.close()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {Path(log.name).read_text(errors='replace')}")
        try:
            httpx.get(f"{url}/openapi.json", timeout=1).raise_for_status()
            return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("server did not start in 60 s")


@pytest.fixture(scope="module")
def api(assist_workspace: Workspace) -> Iterator[dict[str, str]]:
    store = KeyStore(assist_workspace.config.data_dir)
    _, test_key = store.create("test", "tests")
    _, other_key = store.create("other", "tests")
    proc, url = start_server(str(assist_workspace.config_path))
    yield {"url": url, "test": test_key, "other": other_key}
    proc.terminate()
    proc.wait(timeout=10)


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_keys_are_stored_hashed_and_revocable_from_the_cli(assist_workspace: Workspace) -> None:
    runner = CliRunner()
    config = str(assist_workspace.config_path)
    created = runner.invoke(app, ["keys", "create", "test", "--label", "phone", "--config", config])
    assert created.exit_code == 0, created.output
    token = created.output.strip().splitlines()[-1]
    stored = (assist_workspace.config.data_dir / "api_keys.json").read_text()
    assert token.startswith("mnemo_") and token not in stored and token.split("_", 2)[2] not in stored
    store = KeyStore(assist_workspace.config.data_dir)
    assert store.namespace_of(token) == "test" and store.namespace_of(token + "x") is None
    key_id = token.split("_")[1]
    listed = runner.invoke(app, ["keys", "list", "--config", config])
    assert key_id in listed.output and "phone" in listed.output
    assert runner.invoke(app, ["keys", "revoke", key_id, "--config", config]).exit_code == 0
    assert store.namespace_of(token) is None
    assert runner.invoke(app, ["keys", "revoke", key_id, "--config", config]).exit_code == 2
    assert runner.invoke(app, ["keys", "create", "Bad Name!", "--config", config]).exit_code == 2


def test_remember_recall_entity_forget_round_trip(api: dict[str, str]) -> None:
    url, headers = api["url"], auth(api["test"])
    recalled = httpx.get(f"{url}/v1/test/recall", params={"q": "Dana Kim advice about meetings", "k": 5}, headers=headers)
    assert recalled.status_code == 200 and "Write the doc before the meeting" in recalled.json()["text"]
    entity = httpx.get(f"{url}/v1/test/entities/person_id:dana_kim", headers=headers)
    assert entity.status_code == 200 and entity.json()["properties"]["role"]["value"] == "VP Engineering"
    made = httpx.post(f"{url}/v1/test/memories", json={"text": "Parked on level -2.", "entities": []}, headers=headers)
    assert made.status_code == 201 and made.json()["status"] == "recallable"
    memory_id = made.json()["id"]
    found = httpx.get(f"{url}/v1/test/recall", params={"q": "Where did I park?", "k": 3}, headers=headers)
    assert found.json()["items"][0]["text"] == "Parked on level -2."
    brief = httpx.post(f"{url}/v1/test/memories", json={"text": "Gate code 4512.", "ttl": 3600}, headers=headers)
    assert brief.status_code == 201 and brief.json()["expires_at"] > brief.json()["created"]
    bad = httpx.post(f"{url}/v1/test/memories", json={"text": "Gate code 4512.", "expires_at": "soon"}, headers=headers)
    assert bad.status_code == 400 and "invalid expires_at" in bad.json()["detail"]
    httpx.delete(f"{url}/v1/test/memories/{brief.json()['id']}", headers=headers, timeout=60)
    scoped = httpx.post(f"{url}/v1/test/memories", json={"text": "Gate code 7781.", "scope": "project:gate"},
                        headers=headers)
    question: dict[str, str | int] = {"q": "What is the gate code?", "k": 5}
    hidden = httpx.get(f"{url}/v1/test/recall", params=question, headers=headers).json()["items"]
    shown = httpx.get(f"{url}/v1/test/recall", params={**question, "project": "gate"}, headers=headers).json()["items"]
    assert "Gate code 7781." not in [i["text"] for i in hidden] and shown[0]["text"] == "Gate code 7781."
    httpx.delete(f"{url}/v1/test/memories/{scoped.json()['id']}", headers=headers, timeout=60)
    assert httpx.get(f"{url}/v1/test/memories/{memory_id}", headers=headers).json()["text"] == "Parked on level -2."
    assert httpx.delete(f"{url}/v1/test/memories/{memory_id}", headers=headers).status_code == 200
    assert httpx.get(f"{url}/v1/test/memories/{memory_id}", headers=headers).status_code == 404
    context = httpx.get(f"{url}/v1/test/context", params={"message": "What advice did Dana Kim give me about meetings?", "budget": 800}, headers=headers)
    assert context.status_code == 200 and "Write the doc before the meeting" in context.json()["context"]


def test_memories_by_title_and_scope_and_recall_options(api: dict[str, str]) -> None:
    url, headers = api["url"], auth(api["test"])
    scope = "project:http-titled"
    saved = httpx.put(f"{url}/v1/test/titled", json={"title": "Locker", "text": "Locker 31 holds the spare keys.",
                                                     "scope": scope}, headers=headers)
    assert saved.status_code == 200 and saved.json()["status"] == "recallable"
    first = httpx.get(f"{url}/v1/test/recall", params={"q": "Which locker holds the spare keys?", "limit": 3,
                                                       "project": "http-titled"}, headers=headers).json()
    assert first["items"][0]["text"] == "Locker 31 holds the spare keys." and first["items"][0]["similarity"] > 0
    again = httpx.put(f"{url}/v1/test/titled", json={"title": "locker", "text": "Locker 32 holds the spare keys now.",
                                                     "scope": scope}, headers=headers).json()
    assert again["id"] == saved.json()["id"] and again["history"][0]["text"] == "Locker 31 holds the spare keys."
    question = {"title": "Locker", "scope": scope}
    assert httpx.get(f"{url}/v1/test/titled/exists", params=question, headers=headers).json() == {"exists": True}
    assert httpx.get(f"{url}/v1/test/titled/exists", params={"title": "Locker"}, headers=headers).json() == {
        "exists": False}
    assert httpx.get(f"{url}/v1/test/titled", params={"title": "Locker"}, headers=headers).status_code == 404
    appended = httpx.post(f"{url}/v1/test/titled/append", json={**question, "text": "The code is 0451."},
                          headers=headers)
    assert appended.status_code == 200 and appended.json()["text"].endswith("\n\nThe code is 0451.")
    assert httpx.get(f"{url}/v1/test/titled", params=question, headers=headers).json()["text"] == appended.json()["text"]
    bad = httpx.put(f"{url}/v1/test/titled", json={"title": "Locker--B", "text": "x"}, headers=headers)
    assert bad.status_code == 400 and "run of several non-word characters" in bad.json()["detail"]
    for title in ("Locker\nB", "Locker\tB", "Locker\x00B"):
        bad = httpx.put(f"{url}/v1/test/titled", json={"title": title, "text": "x"}, headers=headers)
        assert bad.status_code == 400 and f"invalid title {ascii(title)}: it has a control character" in bad.json()[
            "detail"]
    listed = httpx.get(f"{url}/v1/test/memories", params={"scope": scope}, headers=headers).json()["memories"]
    assert [(m["title"], m["scope"]) for m in listed] == [("locker", scope)]  # the title last saved
    one = httpx.get(f"{url}/v1/test/memories/{again['id']}", params={"scope": scope}, headers=headers)
    assert one.status_code == 200 and one.json()["scope"] == scope
    assert httpx.get(f"{url}/v1/test/memories/{again['id']}", params={"scope": "global"}, headers=headers).status_code == 404
    floor = httpx.get(f"{url}/v1/test/recall", params={"q": "spare keys locker", "min_similarity": 0.3, "k": 5,
                                                       "project": "http-titled"}, headers=headers).json()["items"]
    assert all(i["similarity"] >= 0.3 for i in floor if i["kind"] == "chunk")
    assert httpx.get(f"{url}/v1/test/recall", params={"q": "x", "min_similarity": 2}, headers=headers).status_code == 422
    assert httpx.get(f"{url}/v1/test/recall", params={"q": "x", "k": 2, "limit": 3}, headers=headers).status_code == 400
    gone = httpx.delete(f"{url}/v1/test/titled", params=question, headers=headers, timeout=60)
    assert gone.status_code == 200 and [i["memory"] for i in gone.json()["items"]] == [again["id"]]
    brief = httpx.post(f"{url}/v1/test/memories", json={"text": "Visitor badge 7719.", "ttl": 1, "scope": scope},
                       headers=headers).json()
    kept = httpx.post(f"{url}/v1/test/memories", json={"text": "Desk 4B.", "scope": scope}, headers=headers).json()
    time.sleep(1.2)
    assert httpx.delete(f"{url}/v1/test/memories", headers=headers).status_code == 400
    expired = httpx.delete(f"{url}/v1/test/memories", params={"expired": "true"}, headers=headers, timeout=60).json()
    assert brief["id"] in [i["memory"] for i in expired["items"]]
    cleared = httpx.delete(f"{url}/v1/test/memories", params={"scope": scope}, headers=headers, timeout=60).json()
    assert [i["memory"] for i in cleared["items"]] == [kept["id"]]
    assert httpx.get(f"{url}/v1/test/memories", params={"scope": scope}, headers=headers).json() == {"memories": []}


def test_forgetting_an_unknown_entity_is_404_and_writes_no_tombstone(api: dict[str, str], assist_workspace: Workspace) -> None:
    url, headers = api["url"], auth(api["test"])
    tombstones = assist_workspace.files("test").root / "tombstones.json"
    before = tombstones.read_bytes() if tombstones.exists() else None
    response = httpx.delete(f"{url}/v1/test/entities/person_id:victor_stone", headers=headers, timeout=60)
    assert response.status_code == 404 and "no entity 'person_id:victor_stone'" in response.json()["detail"]
    assert (tombstones.read_bytes() if tombstones.exists() else None) == before


@pytest.mark.parametrize("path", ["/v1/test/recall?q=Dana", "/v1/test/entities/person_id:dana_kim", "/v1/test/context"])
def test_missing_invalid_and_foreign_keys_get_no_data(api: dict[str, str], path: str) -> None:
    url = api["url"]
    for headers, status in [({}, 401), (auth("mnemo_deadbeef_nope"), 401), ({"Authorization": api["test"]}, 401),
                            (auth(api["other"]), 403)]:
        response = httpx.get(url + path, headers=headers)
        assert response.status_code == status
        assert set(response.json()) == {"detail"} and "Dana" not in response.text
    assert httpx.post(f"{url}/v1/test/memories", json={"text": "x"}, headers=auth(api["other"])).status_code == 403
    assert httpx.delete(f"{url}/v1/test/entities/person_id:dana_kim", headers=auth(api["other"])).status_code == 403
    assert httpx.get(f"{url}/v1/test/entities/person_id:dana_kim", headers=auth(api["test"])).status_code == 200


def test_a_namespace_mnemo_yaml_does_not_list_is_404_and_nothing_is_created(
        api: dict[str, str], assist_workspace: Workspace) -> None:
    url, headers = api["url"], auth(api["other"])  # a key for `other`, which no configuration lists
    made = httpx.post(f"{url}/v1/other/memories", json={"text": "the spare key is under the blue pot"}, headers=headers)
    recalled = httpx.get(f"{url}/v1/other/recall", params={"q": "spare key"}, headers=headers)
    for response in (made, recalled):
        assert response.status_code == 404 and response.json() == {"detail": "namespace 'other' is not configured here"}
    assert not (assist_workspace.config.data_dir / "other").exists()


def test_recall_on_a_namespace_that_holds_nothing_yet_is_409_saying_run_ingest(tmp_path: Path) -> None:
    """A configured namespace never ingested, with nothing remembered: recall says so (409 and the
    CLI's message), not an empty answer, and makes nothing; once a memory is remembered it is recalled."""
    workspace = make_workspace(tmp_path, {"work": []})
    _, key = KeyStore(workspace.config.data_dir).create("work", "tests")
    proc, url = start_server(str(workspace.config_path))
    try:
        recalled = httpx.get(f"{url}/v1/work/recall", params={"q": "spare key"}, headers=auth(key), timeout=60)
        assert recalled.status_code == 409, recalled.text
        assert "holds nothing yet" in recalled.json()["detail"] and "run `mnemo ingest`" in recalled.json()["detail"]
        assert not (workspace.config.data_dir / "work").exists()
        made = httpx.post(f"{url}/v1/work/memories", json={"text": "the spare key is under the blue pot"},
                          headers=auth(key), timeout=60)
        assert made.status_code == 201, made.text
        again = httpx.get(f"{url}/v1/work/recall", params={"q": "spare key"}, headers=auth(key), timeout=60)
        assert again.status_code == 200 and "blue pot" in again.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_malformed_and_oversized_requests_get_clear_4xx(api: dict[str, str]) -> None:
    url, headers = api["url"], auth(api["test"])
    cases = [
        httpx.post(f"{url}/v1/test/memories", content=b"{not json", headers={**headers, "Content-Type": "application/json"}),
        httpx.post(f"{url}/v1/test/memories", json={"text": ""}, headers=headers),
        httpx.post(f"{url}/v1/test/memories", json={"txt": "x"}, headers=headers),
        httpx.post(f"{url}/v1/test/memories", json={"text": "x", "entities": "person_id:a"}, headers=headers),
        httpx.get(f"{url}/v1/test/recall", params={"q": "x", "k": 0}, headers=headers),
        httpx.get(f"{url}/v1/test/recall", params={"q": "x", "mode": "fast"}, headers=headers),
        httpx.get(f"{url}/v1/test/recall", headers=headers),
    ]
    assert [c.status_code for c in cases] == [422] * 7
    assert all(c.json()["detail"] for c in cases)
    big = httpx.post(f"{url}/v1/test/memories", json={"text": "x" * (MAX_BODY + 10)}, headers=headers)
    assert big.status_code == 413 and "too large" in big.json()["detail"]
    chunked = httpx.post(f"{url}/v1/test/memories", content=iter([b'{"text": "', b"y" * MAX_BODY, b'"}']), headers=headers)
    assert chunked.status_code == 413
    bad_ref = httpx.get(f"{url}/v1/test/entities/not-a-ref", headers=headers)
    assert 400 <= bad_ref.status_code < 500 and bad_ref.json()["detail"]


def test_openapi_schema_is_published(api: dict[str, str]) -> None:
    schema = httpx.get(f"{api['url']}/openapi.json").json()
    assert {"/v1/{namespace}/memories", "/v1/{namespace}/recall", "/v1/{namespace}/context",
            "/v1/{namespace}/entities/{ref}", "/v1/{namespace}/memories/{memory_id}", "/v1/{namespace}/titled",
            "/v1/{namespace}/titled/exists", "/v1/{namespace}/titled/append"} <= set(schema["paths"])
    assert set(schema["paths"]["/v1/{namespace}/memories"]) == {"get", "post", "delete"}
    assert {"get", "put", "delete"} <= set(schema["paths"]["/v1/{namespace}/titled"])
    recall = {p["name"] for p in schema["paths"]["/v1/{namespace}/recall"]["get"]["parameters"]}
    assert {"limit", "k", "min_similarity", "project", "session"} <= recall
    assert json.dumps(schema).count("RememberBody") >= 2 and json.dumps(schema).count("SaveBody") >= 2


def test_generated_requests_never_make_the_server_fail(api: dict[str, str]) -> None:
    """Property-based requests generated from the published schema (schemathesis + hypothesis),
    sent with a valid key for `test`: no 5xx, responses match the schema."""
    schema = schemathesis.openapi.from_url(f"{api['url']}/openapi.json")
    sent: list[tuple[str, int]] = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: schemathesis.Case) -> None:
            case.path_parameters = {**(case.path_parameters or {}), "namespace": "test"}
            response = case.call(headers=auth(api["test"]), timeout=20)
            sent.append((operation.label, response.status_code))  # noqa: B023 - run() is called in this loop turn
            case.validate_response(response, checks=[not_a_server_error, content_type_conformance, response_schema_conformance])

        run()
    operations, statuses = {label for label, _ in sent}, sorted({status for _, status in sent})
    print(f"\nschemathesis: {len(sent)} generated requests over {len(operations)} operations, statuses {statuses}")
    assert len(operations) >= 8 and len(sent) >= 8 * 6
    assert max(statuses) < 500 and 200 in statuses


def test_recall_writes_nothing_to_stderr(assist_workspace: Workspace, capfd: pytest.CaptureFixture[str]) -> None:
    """A server logs to stderr; a search that printed a warning per call would flood it."""
    from mnemo.client import MemoryClient

    client = MemoryClient("test", assist_workspace.config)
    capfd.readouterr()
    for mode in ("eager", "deliberate"):
        assert client.recall("Dana Kim advice about meetings", k=5, mode=mode).items
    assert "warn" not in capfd.readouterr().err.lower()
