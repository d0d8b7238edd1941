"""`mnemo up`: the long-running process for one machine — a code server holding mnemo's definitions,
and Dagster's webserver and daemon loading them from it, on the project's instance, so the sensors
and the nightly schedule run; Ctrl-C or SIGTERM stops all three and everything they started.

The daemon and webserver get a workspace naming the one code server. Given the project's
`workspace.yaml` instead, each starts a code server of its own, and the daemon replaces its own
every minute, loading the code anew in a new process (idle, `mnemo up` took 3.8 s of CPU a minute
that way, 3.0 s now), while the webserver's keeps the definitions it loaded first. The definitions
read mnemo.yaml once (the nightly schedule's time), so when that file changes the code server
reloads them, and the UI and the daemon both take the new ones."""

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from mnemo.cli.instance import dagster_home
from mnemo.cli.options import ConfigOption, fail
from mnemo.cli.up_log import UpLog
from mnemo.errors import MnemoError

console = Console()
STOP_SECONDS = 20.0  # how long the children get to end after SIGTERM before they are killed
POLL_SECONDS = 0.5
LOAD_SECONDS = 300.0  # how long the code server may take to load the definitions
# The code location's name: the one the project's workspace.yaml gives it (the module's), under
# which the instance keeps the sensors' cursors and the schedule's state.
LOCATION = "definitions"


@dataclass
class Children:
    """The webserver and the daemon, each the leader of its own process group (so whatever it
    starts — code servers, runs — is stopped with it). Their output is read line by line and
    shown as `UpLog` says (with `verbose`, all of it)."""

    verbose: bool = False
    processes: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def start(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        child = subprocess.Popen(argv, env=env, cwd=_folder(env), start_new_session=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.processes[name] = child
        threading.Thread(target=_relay, args=(child, UpLog(self.verbose)), daemon=True, name=f"log-{name}").start()

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


_PRINTING = threading.Lock()


def _relay(child: subprocess.Popen[bytes], shown: UpLog) -> None:
    """Each line of a child's output (and of what it starts) that `shown` keeps, to stdout."""
    assert child.stdout is not None
    for raw in child.stdout:
        line = shown(raw.decode("utf-8", errors="replace"))
        if line is not None:
            with _PRINTING:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()


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
    return {**os.environ, "DAGSTER_HOME": str(home), "MNEMO_CONFIG": str(config_path.resolve())}


def _folder(env: dict[str, str]) -> Path:
    """The working folder of every process `up` starts: the config file's. The definitions load by
    module name (`mnemo_dagster.definitions`) from the installed package, wherever that is."""
    return Path(env["MNEMO_CONFIG"]).parent


def _prepare_instance(env: dict[str, str]) -> None:
    """Create (or upgrade) the instance's storage before the webserver and the daemon start: both
    would create a new instance's tables at once, and one of them fail."""
    done = subprocess.run([_tool("dagster"), "instance", "migrate"], env=env, cwd=_folder(env),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        fail(f"cannot prepare the Dagster instance in {env['DAGSTER_HOME']}: {done.stderr.strip()[-2000:]}")


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _code_server(command: str, port: int, env: dict[str, str]) -> subprocess.Popen[str]:
    """`python -m mnemo_dagster.jobs.code_server wait|reload PORT`: Dagster is imported there, not here."""
    argv = [sys.executable, "-m", "mnemo_dagster.jobs.code_server", command, str(port), str(LOAD_SECONDS)]
    return subprocess.Popen(argv, env=env, cwd=_folder(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)


def _start_code_server(children: "Children", env: dict[str, str]) -> int:
    """The code server on a free loopback port, once it has loaded the definitions; its port."""
    port = _free_port()
    children.start("code-server", [_tool("dagster"), "code-server", "start", "-m", "mnemo_dagster.definitions",
                                   "-h", "127.0.0.1", "-p", str(port), "--location-name", LOCATION], env)
    waiting = _code_server("wait", port, env)
    try:
        while waiting.poll() is None:
            ended = children.exited()
            if ended is not None:
                fail(f"the code server exited with status {ended[1]} before loading mnemo's definitions")
            time.sleep(POLL_SECONDS)
    finally:
        if waiting.poll() is None:  # stopped while waiting
            waiting.kill()
            waiting.wait()
    if waiting.returncode != 0:
        said = waiting.stderr.read().strip() if waiting.stderr else ""
        fail(f"the code server cannot load mnemo's definitions: {said}")
    return port


def _workspace(home: Path, port: int) -> Path:
    """The workspace naming the code server, in the instance folder."""
    import yaml  # loads when `up` runs, not with --help

    path = home / "workspace.yaml"
    server = {"host": "127.0.0.1", "port": port, "location_name": LOCATION}
    path.write_text("# written by `mnemo up` at each start: the code server it started\n"
                    + yaml.safe_dump({"load_from": [{"grpc_server": server}]}), encoding="utf-8")
    return path


def _reload(port: int, env: dict[str, str]) -> None:
    """Ask the code server to load the definitions anew (mnemo.yaml changed)."""
    reloading = _code_server("reload", port, env)
    _, said = reloading.communicate()
    if reloading.returncode != 0:
        console.print(f"[yellow]mnemo.yaml changed, but the code server did not reload: {escape(said.strip())}[/]",
                      soft_wrap=True)
        return
    console.print("mnemo.yaml changed: the definitions were reloaded (the daemon takes them within a minute)")


def up(
    config: ConfigOption = None,
    host: Annotated[str, typer.Option(help="Address the UI listens on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port the UI listens on.")] = 3000,
    verbose: Annotated[bool, typer.Option(
        "--verbose", help="Every log line of Dagster's processes, not only runs, sensor requests, warnings and errors.",
    )] = False,
) -> None:
    """Run mnemo's code server, Dagster's webserver and daemon (UI, sensors, nightly schedule) until stopped."""
    from mnemo.config import load_config, resolve_config_path  # pydantic loads when `up` runs, not with --help

    path = resolve_config_path(config)
    try:
        load_config(path)
    except MnemoError as exc:
        fail(str(exc))
    env = _environment(path)
    _prepare_instance(env)
    children = Children(verbose)

    def stop(signum: int, _frame: FrameType | None) -> None:
        raise KeyboardInterrupt  # ends the wait below; the children are stopped in `finally`

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, stop)
    try:
        code_port = _start_code_server(children, env)
        workspace = ["-w", str(_workspace(Path(env["DAGSTER_HOME"]), code_port))]
        children.start("daemon", [_tool("dagster-daemon"), "run", *workspace], env)
        children.start("webserver", [_tool("dagster-webserver"), *workspace, "-h", host, "-p", str(port)], env)
        console.print(f"mnemo is up: the UI is at http://{host}:{port} (Dagster instance {env['DAGSTER_HOME']}); "
                      "Ctrl-C stops it", soft_wrap=True)
        ended = _wait(children, path, code_port, env)
    except KeyboardInterrupt:
        ended = None
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)  # a second Ctrl-C does not cut the stopping short
        children.stop()
    if ended is not None:
        fail(f"dagster-{ended[0]} exited with status {ended[1]}; stopped the rest")
    console.print("mnemo stopped")


def _wait(children: Children, config_path: Path, code_port: int, env: dict[str, str]) -> tuple[str, int] | None:
    """Until a child exits (its name and status); reloads the definitions when mnemo.yaml changes."""
    seen = _stamp(config_path)
    while True:
        ended = children.exited()
        if ended is not None:
            return ended
        stamp = _stamp(config_path)
        if stamp != seen:
            seen = stamp
            _reload(code_port, env)
        time.sleep(POLL_SECONDS)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def register(app: typer.Typer) -> None:
    """Add `up` to the `mnemo` app."""
    app.command()(up)
