"""A loopback OpenAI-compatible chat-completions server for tests: scripted answers, recorded requests.

It listens on 127.0.0.1 only, on a free port, and is started and stopped by the test.
Answers come from `script` (consumed in order) and then from `responder`. A reply can be
a status error (429, 500), a delay (to provoke client timeouts), or structured output,
sent as a tool call when the request offers tools and as message content otherwise.
Token usage is estimated as characters / 4 of the request and of the answer.
"""

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    arguments: dict[str, Any] | None = None
    status: int = 200
    delay: float = 0.0
    text: str | None = None  # plain message content instead of structured output
    message: str | None = None  # the error message of a status reply


def is_probe(request: dict[str, Any]) -> bool:
    """Whether the request is mnemo's capability probe."""
    return any("Reply with ok" in str(m.get("content")) for m in request.get("messages", []))


def empty_reply(request: dict[str, Any]) -> Reply:
    """Answers the probe, and every extraction with nothing found."""
    return Reply(arguments={"ok": True} if is_probe(request) else {"entities": [], "relations": []})


def _completion(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    text = reply.text if reply.text is not None else json.dumps(reply.arguments or {})
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if request.get("tools") and reply.text is None:
        name = request["tools"][0]["function"]["name"]
        message["tool_calls"] = [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}]
        finish = "tool_calls"
    else:
        message["content"] = text
        finish = "stop"
    prompt_chars = len(json.dumps(request.get("messages", []))) + len(json.dumps(request.get("tools", [])))
    usage = {"prompt_tokens": prompt_chars // 4, "completion_tokens": max(1, len(text) // 4)}
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "created": int(time.time()),
        "model": request.get("model", "stub"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": usage,
    }


@dataclass
class StubLLM:
    """Start with `with StubLLM(...) as stub:`; `stub.url` is the base URL (`.../v1`)."""

    responder: Callable[[dict[str, Any]], Reply] = empty_reply
    script: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def next_reply(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if self.script:
                return self.script.pop(0)
        return self.responder(request)

    def __enter__(self) -> "StubLLM":
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                reply = stub.next_reply(body)
                time.sleep(reply.delay)
                if reply.status != 200:
                    payload = {"error": {"message": reply.message or f"stub status {reply.status}", "type": "stub"}}
                else:
                    payload = _completion(body, reply)
                    with stub._lock:
                        stub.prompt_tokens += payload["usage"]["prompt_tokens"]
                        stub.completion_tokens += payload["usage"]["completion_tokens"]
                data = json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def prompts(self) -> list[str]:
        """The first user message of every recorded request (the passage and its grounding)."""
        return [next(m["content"] for m in r["messages"] if m.get("role") == "user") for r in self.requests]

    def tokens(self) -> tuple[int, int]:
        """(prompt, completion) tokens the stub has reported, by its chars/4 estimate."""
        return self.prompt_tokens, self.completion_tokens
