"""Bad input to `mnemo mcp` over stdio gets a prompt, clear error answer: unpaired surrogates,
`forget` naming no or two targets, malformed `since`/`until`, control characters in titles."""

import asyncio
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from mnemo.recall.time_bounds import FORMS

ANSWER_WAIT = 120.0  # only a guard against a hang: a correct server answers at once
MALFORMED = ["notadate", "20261101", "2026-W44", "2026-13", "2026-02-30", "2026-11-01 10:00", ""]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp_input")
    path = root / "mnemo.yaml"
    path.write_text(f"data_dir: {root / 'data'}\nnamespaces:\n  test:\n    sources: []\n"
                    "embedder:\n  kind: hashing\n", encoding="utf-8")
    return path


def _command(config: Path) -> list[str]:
    return [sys.executable, "-m", "mnemo.cli.main", "mcp", "--namespace", "test", "--config", str(config)]


class RawSession:
    """`mnemo mcp` spoken to line by line, so that a request can hold what the SDK client cannot send."""

    def __init__(self, config: Path) -> None:
        self.proc = subprocess.Popen(_command(config), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=dict(os.environ))
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout or []], daemon=True).start()
        self.ask('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                 '"capabilities":{},"clientInfo":{"name":"test","version":"1"}}}')
        self._send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def _send(self, raw: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw.encode("ascii") + b"\n")
        self.proc.stdin.flush()

    def ask(self, raw: str) -> dict[str, Any]:
        self._send(raw)
        return json.loads(self.lines.get(timeout=ANSWER_WAIT))

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module")
def raw(config: Path) -> Iterator[RawSession]:
    session = RawSession(config)
    yield session
    session.close()


@pytest.mark.parametrize(("tool", "arguments", "named"), [
    ("remember", r'{"text": "x \ud800"}', "text"),
    ("recall", r'{"query": "x \ud800"}', "query"),
    ("save", r'{"title": "Trip", "text": "x \udfff y"}', "text"),
])
def test_an_unpaired_surrogate_gets_an_error_answer_naming_the_argument(
    raw: RawSession, tool: str, arguments: str, named: str,
) -> None:
    answer = raw.ask(f'{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"{tool}",'
                     f'"arguments":{arguments}}}}}')
    assert answer["id"] == 7 and "result" not in answer
    assert answer["error"]["message"].startswith(f"argument '{named}' is not Unicode text")
    after = raw.ask('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"recall","arguments":{"query":"x"}}}')
    assert after["id"] == 8 and "result" in after  # the server goes on answering


async def _tool_errors(config: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The error text of each call (a call that succeeds fails the test)."""
    params = StdioServerParameters(command=sys.executable, args=_command(config)[1:], env=dict(os.environ))
    texts = []
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for tool, arguments in calls:
            result = await session.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments, result.content)
            texts.append(result.content[0].text.removeprefix(f"Error executing tool {tool}: "))
    return texts


def test_forget_with_no_or_two_targets_names_the_problem(config: Path) -> None:
    calls = [("forget", {}), ("forget", {"confirm": True}), ("forget", {"memory_id": "m", "entity": "person_id:a"}),
             ("forget", {"memory_id": "m", "entity": "person_id:a", "confirm": True})]
    texts = asyncio.run(_tool_errors(config, calls))
    needs = "forget needs exactly one of: memory_id, entity, query, title, scope, expired"
    assert texts == [f"{needs} (got none of them)"] * 2 + [f"{needs} (got memory_id and entity)"] * 2


def test_malformed_since_and_until_are_tool_errors_naming_them(config: Path) -> None:
    calls = [(tool, {**extra, name: value}) for value in MALFORMED for name in ("since", "until")
             for tool, extra in (("recall", {"query": "x"}), ("timeline", {}))]
    calls.append(("recall", {"query": "x", "since": "2026-11-02", "until": "2026-11-01"}))
    texts = asyncio.run(_tool_errors(config, calls))
    expected = [f"{name} {value!r} is not a date or time: use {FORMS}" for value in MALFORMED
                for name in ("since", "until") for _ in range(2)]
    assert texts == [*expected, "since 2026-11-02 is after until 2026-11-01: nothing could match"]


def test_a_title_with_a_control_character_is_refused(config: Path) -> None:
    titles = ["a\x00b", "Trip\nto Oslo", "Trip\tOslo"]
    calls = [("save", {"title": title, "text": "t"}) for title in titles]
    calls += [("append", {"title": title, "text": "t"}) for title in titles]
    texts = asyncio.run(_tool_errors(config, calls))
    for title, text in zip(titles * 2, texts, strict=True):
        assert "it has a control character" in text and ascii(title) in text, text
