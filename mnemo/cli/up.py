"""`mnemo up`: the long-running process for one machine — Dagster's webserver and daemon on the
project's workspace and instance, so the sensors and the nightly schedule run; Ctrl-C or SIGTERM
stops both and everything they started."""

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.console import Console

from mnemo.cli.instance import REPO, WORKSPACE, dagster_home
from mnemo.cli.options import ConfigOption, fail
from mnemo.config import load_config, resolve_config_path
from mnemo.errors import MnemoError

console = Console()
STOP_SECONDS = 20.0  # how long the children get to end after SIGTERM before they are killed
POLL_SECONDS = 0.5


@dataclass
class Children:
    """The webserver and the daemon, each the leader of its own process group (so whatever it
    starts — code servers, runs — is stopped with it)."""

    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        self.processes[name] = subprocess.Popen(argv, env=env, cwd=REPO, start_new_session=True)

    def exited(self) -> tuple[str, int] | None:
        for name, child in self.processes.items():
            if child.poll() is not None:
                return name, child.returncode
        return None

    def stop(self) -> None:
        """SIGTERM to every child's group; SIGKILL to the groups still there after STOP_SECONDS."""
        for child in self.processes.values():
            _signal_group(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for child in self.processes.values():
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        for child in self.processes.values():
            _signal_group(child.pid, signal.SIGKILL)  # what the leaders left behind


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass  # the whole group has ended


def _tool(name: str) -> str:
    """A Dagster command installed beside this Python (the virtualenv's bin folder)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        fail(f"{path} not found: install mnemo's dependencies (make install)")
    return str(path)


def _environment(config_path: Path) -> dict[str, str]:
    home = dagster_home(config_path)
    return {**os.environ, "DAGSTER_HOME": str(home), "MNEMO_CONFIG": str(config_path)}


def _prepare_instance(env: dict[str, str]) -> None:
    """Create (or upgrade) the instance's storage before the webserver and the daemon start: both
    would create a new instance's tables at once, and one of them fail."""
    done = subprocess.run([_tool("dagster"), "instance", "migrate"], env=env, cwd=REPO,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        fail(f"cannot prepare the Dagster instance in {env['DAGSTER_HOME']}: {done.stderr.strip()[-2000:]}")


def up(
    config: ConfigOption = None,
    host: Annotated[str, typer.Option(help="Address the UI listens on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port the UI listens on.")] = 3000,
) -> None:
    """Run Dagster's webserver and daemon for mnemo (the UI, the sensors, the nightly schedule) until stopped."""
    path = resolve_config_path(config)
    try:
        load_config(path)
    except MnemoError as exc:
        fail(str(exc))
    env = _environment(path)
    _prepare_instance(env)
    workspace = ["-w", str(WORKSPACE)]
    children = Children()

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # ends the wait below; the children are stopped in `finally`

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    try:
        children.start("daemon", [_tool("dagster-daemon"), "run", *workspace], env)
        children.start("webserver", [_tool("dagster-webserver"), *workspace, "-h", host, "-p", str(port)], env)
        console.print(f"mnemo is up: the UI is at http://{host}:{port} (Dagster instance {env['DAGSTER_HOME']}); "
                      "Ctrl-C stops it", soft_wrap=True)
        ended = _wait(children)
    except KeyboardInterrupt:
        ended = None
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # a second Ctrl-C does not cut the stopping short
        children.stop()
    if ended is not None:
        fail(f"dagster-{ended[0]} exited with status {ended[1]}; stopped the rest")
    console.print("mnemo stopped")


def _wait(children: Children) -> tuple[str, int] | None:
    while True:
        ended = children.exited()
        if ended is not None:
            return ended
        time.sleep(POLL_SECONDS)


def register(app: typer.Typer) -> None:
    """Add `up` to the `mnemo` app."""
    app.command()(up)
