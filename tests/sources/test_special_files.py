"""Only regular files are read: a FIFO, a socket (or a device) named like a note is reported
by name and skipped, never opened, by the scan and by the file-drop sensor's snapshot."""

import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from mnemo.config import SourceConfig
from mnemo.sources.scan import scan_namespace
from mnemo.sources.walk import read_regular
from mnemo.sources.watch import snapshot

T = TypeVar("T")


def finishes(call: Callable[[], T], seconds: float = 20.0) -> T:
    """The call's result; fails (instead of hanging the suite) if it blocks."""
    out: list[T] = []
    raised: list[BaseException] = []

    def run() -> None:
        try:
            out.append(call())
        except BaseException as exc:  # handed to the test's thread
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "blocked on a file that is not a regular file"
    if raised:
        raise raised[0]
    return out[0]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Notes").mkdir(parents=True)
    (root / "Notes" / "Real.md").write_text("# Real\nA real note about [[Elsewhere]].\n", encoding="utf-8")
    os.mkfifo(root / "x.md")
    os.mkfifo(root / "Notes" / "pipe.md")
    return root


def test_a_fifo_or_a_socket_in_a_vault_is_reported_and_skipped(vault: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(vault / "sock.md"))
        result = finishes(lambda: scan_namespace("t", (SourceConfig(kind="obsidian", path=vault),), [], []))
    finally:
        sock.close()
    assert [d.path for d in result.documents] == ["Notes/Real.md"]
    reasons = {p.path: p.reason for p in result.problems}
    assert reasons["x.md"] == "a named pipe (FIFO), not a regular file (not read)"
    assert reasons["Notes/pipe.md"] == "a named pipe (FIFO), not a regular file (not read)"
    assert reasons["sock.md"] == "a socket, not a regular file (not read)"
    assert all(p.fatal for p in result.problems)


def test_the_file_drop_sensor_skips_a_fifo(vault: Path) -> None:
    files = finishes(lambda: snapshot([vault], {}))
    assert sorted(Path(p).name for p in files) == ["Real.md"]


def test_a_file_replaced_by_a_fifo_after_listing_is_refused_when_opened(vault: Path) -> None:
    with pytest.raises(OSError, match="a named pipe"):
        finishes(lambda: read_regular(str(vault / "x.md")))
    assert read_regular(str(vault / "Notes" / "Real.md")).startswith(b"# Real")
