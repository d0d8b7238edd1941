"""Chat hooks on real stores: before_turn context within budget, after_turn durable, the example chat loop."""

import datetime as dt
import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from openai import OpenAI

from examples.chat_loop import chat
from mnemo.client import MemoryClient
from mnemo.serve.activity import explore, self_profile, timeline, top_of_mind
from mnemo.serve.hooks import after_turn, before_turn, tokens
from tests.support import Workspace, configured

NOW = dt.datetime(2026, 11, 21, 9, 0, tzinfo=dt.UTC)


def client(workspace: Workspace, namespace: str = "test") -> MemoryClient:
    return MemoryClient(namespace, configured(workspace, namespace).config_path)


def test_before_turn_recalls_for_the_latest_user_message(assist_workspace: Workspace) -> None:
    messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"},
                {"role": "user", "content": "What advice did Dana Kim give me about meetings?"}]
    context = before_turn("test", messages, NOW, client=client(assist_workspace))
    assert context.startswith("## Relevant memories")
    assert "Write the doc before the meeting" in context
    assert "## Top of mind" in context


@pytest.mark.parametrize("budget", [40, 120, 400])
def test_before_turn_stays_within_its_token_budget(assist_workspace: Workspace, budget: int) -> None:
    messages = [{"role": "user", "content": "What do I know about Acme Robotics and the docking work?"}]
    context = before_turn("test", messages, NOW, client=client(assist_workspace), token_budget=budget)
    assert context and sum(tokens(line) + 1 for line in context.splitlines()) <= budget
    assert not context.splitlines()[-1].startswith("## ")


def test_after_turn_remembers_the_exchange_durably_and_marks_the_interaction(assist_workspace: Workspace) -> None:
    chat_client = client(assist_workspace, "chat")
    messages = [{"role": "user", "content": "old question"}, {"role": "assistant", "content": "old answer"},
                {"role": "user", "content": "I adopted a cat called Miso today."},
                {"role": "assistant", "content": "Congratulations on Miso!"}]
    memory = after_turn("chat", messages, NOW, client=chat_client)
    stored = json.loads((Path(chat_client.files.root) / "inbox" / f"{memory.id}.json").read_text())
    assert memory.status == "recallable"
    assert "Miso" in client(assist_workspace, "chat").recall("what is my cat called").text
    assert stored["text"] == "user: I adopted a cat called Miso today.\nassistant: Congratulations on Miso!"
    later = before_turn("chat", [{"role": "user", "content": "hi"}], NOW + dt.timedelta(hours=5), client=chat_client)
    assert "Last talked 5 hours ago (2026-11-21T09:00:00+00:00)." in later
    assist_workspace.ingest("chat")
    assert client(assist_workspace, "chat").memory(memory.id).status == "ingested"
    assert "Miso" in client(assist_workspace, "chat").recall("what is my cat called").text


def test_after_turn_without_a_user_message_is_an_error(assist_workspace: Workspace) -> None:
    from mnemo.errors import MnemoError

    with pytest.raises(MnemoError, match="user message"):
        after_turn("test", [{"role": "assistant", "content": "hi"}], NOW, client=client(assist_workspace))


def test_graph_readers_answer_from_the_graph_and_degrade_without_one(assist_workspace: Workspace) -> None:
    c = client(assist_workspace)
    top = top_of_mind(c)
    assert top["source"] == "mentions" and "sleep mode" in top["degraded"]
    assert top["items"] and top["items"][0]["mentions"] >= top["items"][-1]["mentions"] > 0
    me = self_profile(c)
    assert me["self"]["id"] == "person_sam_rivera" and me["profile"] is None and "sleep mode" in me["degraded"]
    dana = explore(c, "person_id:dana_kim", ["works_at"], depth=1)
    assert {e["dst"] for e in dana["edges"]} == {"organization_acme_robotics"}
    wider = explore(c, "person_id:dana_kim", depth=2)
    assert max(e["hop"] for e in wider["edges"]) == 2
    days = timeline(c, since="2026-09-01", until="2026-09-03")
    assert {n["at"][:10] for n in days["notes"]} <= {"2026-09-01", "2026-09-02", "2026-09-03"} and days["notes"]
    empty = client(assist_workspace, "nobody")
    assert top_of_mind(empty)["items"] == [] and "does not exist" in top_of_mind(empty)["degraded"]
    assert timeline(empty)["notes"] == []


def test_readers_prefer_what_sleep_mode_wrote(assist_workspace: Workspace) -> None:
    import kuzu

    c = client(assist_workspace, "slept")
    c.files.graph_path.parent.mkdir(parents=True, exist_ok=True)
    conn = kuzu.Connection(kuzu.Database(str(c.files.graph_path)))
    for statement in [
        "CREATE NODE TABLE Entity(id STRING, kind STRING, name STRING, PRIMARY KEY (id))",
        "CREATE NODE TABLE Salience(id STRING, item_id STRING, score DOUBLE, top_of_mind BOOLEAN, PRIMARY KEY (id))",
        "CREATE NODE TABLE SelfProfile(id STRING, version INT64, created STRING, text STRING, sections STRING, is_current BOOLEAN, PRIMARY KEY (id))",
        "CREATE (:Entity {id: 'project_heron', kind: 'project', name: 'Heron'}), (:Entity {id: 'person_bo', kind: 'person', name: 'Bo'})",
        "CREATE (:Salience {id: 's1', item_id: 'project_heron', score: 0.9, top_of_mind: true}), "
        "(:Salience {id: 's2', item_id: 'person_bo', score: 0.95, top_of_mind: false})",
        "CREATE (:SelfProfile {id: 'p1', version: 1, text: 'old', is_current: false}), "
        "(:SelfProfile {id: 'p2', version: 2, text: 'Sam builds robots.', is_current: true})",
    ]:
        conn.execute(statement)
    conn.close()
    top = top_of_mind(c)
    assert top == {"source": "sleep", "items": [{"id": "project_heron", "name": "Heron", "kind": "project", "score": 0.9}], "degraded": None}
    c.config.namespaces["slept"] = c.config.namespace("test")
    assert self_profile(c)["profile"]["text"] == "Sam builds robots."


class _ChatStub(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.requests.append(body)
        reply = {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                 "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": f"answer {len(self.requests)}"}}],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def chat_stub() -> Iterator[str]:
    _ChatStub.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatStub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_example_chat_loop_uses_both_hooks(assist_workspace: Workspace, chat_stub: str) -> None:
    llm = OpenAI(base_url=chat_stub, api_key="unused", max_retries=0)
    out = io.StringIO()
    lines = io.StringIO("What advice did Dana Kim give me about meetings?\nthanks\n\nnot read\n")
    turns = chat(llm, "stub-model", "loop", lines, out, str(configured(assist_workspace, "loop").config_path))
    assert turns == 2 and out.getvalue() == "assistant: answer 1\nassistant: answer 2\n"
    first, second = _ChatStub.requests
    assert first["messages"][0]["role"] == "system" and first["messages"][-1]["content"].startswith("What advice")
    assert second["messages"][-3:] == [{"role": "user", "content": "What advice did Dana Kim give me about meetings?"},
                                       {"role": "assistant", "content": "answer 1"}, {"role": "user", "content": "thanks"}]
    assert "Last talked" in second["messages"][0]["content"]
    inbox = sorted((Path(client(assist_workspace, "loop").files.root) / "inbox").glob("*.json"))
    texts = sorted(json.loads(p.read_text())["text"] for p in inbox)
    assert texts == ["user: What advice did Dana Kim give me about meetings?\nassistant: answer 1", "user: thanks\nassistant: answer 2"]
