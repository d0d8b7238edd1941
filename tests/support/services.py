"""Real PostgreSQL, Redis, Celery workers, the Dagster daemon and webserver, started on loopback
in temp folders for the many-machine tests, and stopped by them.

PostgreSQL refuses to run as root: when the tests are root, its folder is given to the
`postgres` user (the Debian package creates it) and its programs run through `runuser`.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import REPO

PG_ROOT = Path("/usr/lib/postgresql")
PG_USER = "postgres"
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, seconds: float, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process {process.args!r} ended with {process.returncode} before port {port} opened")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/<ver>/bin)."""
    found = sorted(PG_ROOT.glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name))
    return found[-1].parent if found else None


def require_services() -> None:
    """Skip unless PostgreSQL, Redis and the `scale` extra are installed."""
    if pg_bin() is None or shutil.which("redis-server") is None:
        pytest.skip("postgresql and redis-server are not installed (apt-get install postgresql redis-server)")
    for module in ("dagster_celery", "dagster_postgres"):
        pytest.importorskip(module, reason="the scale extra is not installed (pip install -e '.[scale]')")


def _as_pg_user(argv: list[str]) -> list[str]:
    return ["runuser", "-u", PG_USER, "--", *argv] if os.geteuid() == 0 else argv


@dataclass
class Postgres:
    folder: Path
    port: int = field(default_factory=free_port)

    @property
    def url(self) -> str:
        # psycopg2 named: SQLAlchemy 2.1 takes a bare postgresql:// for psycopg 3, which dagster-postgres does not bring
        return f"postgresql+psycopg2://{self._user()}@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        binaries = pg_bin()
        assert binaries is not None
        if os.geteuid() == 0:
            shutil.chown(self.folder, PG_USER, PG_USER)
        data = self.folder / "data"
        subprocess.run(_as_pg_user([str(binaries / "initdb"), "-D", str(data), "-A", "trust", "-U", self._user()]),
                       check=True, capture_output=True)
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        subprocess.run(_as_pg_user([str(binaries / "pg_ctl"), "-D", str(data), "-l", str(self.folder / "log"),
                                    "-o", options, "-w", "start"]), check=True, capture_output=True)

    def pid(self) -> int:
        """The server's (postmaster's) process id."""
        return int((self.folder / "data" / "postmaster.pid").read_text(encoding="ascii").split()[0])

    def _user(self) -> str:
        return PG_USER if os.geteuid() == 0 else os.environ.get("USER", "postgres")

    def stop(self) -> None:
        binaries = pg_bin()
        assert binaries is not None
        subprocess.run(_as_pg_user([str(binaries / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate",
                                    "stop"]), check=False, capture_output=True)


@contextmanager
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL server on a free loopback port in a temp folder, trust authentication."""
    folder = Path(tempfile.mkdtemp(prefix="mnemo-pg-"))
    server = Postgres(folder)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def redis() -> Iterator[str]:
    """A Redis server on a free loopback port, nothing saved; yields its URL."""
    port = free_port()
    process = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                "--appendonly", "no", "--daemonize", "no"], stdout=subprocess.DEVNULL)
    try:
        wait_for_port(port, 20, process)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes], seconds: float = 20) -> None:
    """SIGTERM to the process's group, then SIGKILL after `seconds`."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM) if _own_group(process) else process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        kill(process)


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL to the process and every process of its group (a Celery worker and its pool)."""
    if process.poll() is None or _own_group(process):
        try:
            os.killpg(process.pid, signal.SIGKILL) if _own_group(process) else process.kill()
        except ProcessLookupError:
            pass
    process.wait(20)


def _own_group(process: subprocess.Popen[bytes]) -> bool:
    try:
        return os.getpgid(process.pid) == process.pid
    except ProcessLookupError:
        return False


def spawn(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A process in its own group, in the repository, its output in `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen(argv, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
