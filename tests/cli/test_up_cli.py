"""`mnemo up` runs Dagster's webserver and daemon as real processes on loopback: the UI answers,
a note dropped into a watched folder is ingested with no other command, and SIGTERM leaves no
process behind."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import dagster as dg
import pytest
import yaml

from mnemo.stores.files import NamespaceFiles
from tests.support import EXAMPLE_VAULT, REPO, make_workspace

START_SECONDS = 240
INGEST_SECONDS = 420


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _processes() -> dict[int, tuple[int, int]]:
    """Every live process: pid -> (parent pid, process group), from /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), int(fields[2]))
    return found


def _family(root: int) -> set[int]:
    """`root`'s descendants and the members of their process groups."""
    table = _processes()
    family, grew = {root}, True
    while grew:
        more = {pid for pid, (parent, _) in table.items() if parent in family} - family
        groups = {table[pid][1] for pid in family | more if pid in table and pid != root}
        more |= {pid for pid, (_, group) in table.items() if group in groups} - family
        family |= more
        grew = bool(more)
    return family - {root}


def _wait_for_ui(port: int, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert child.poll() is None, "mnemo up ended before the UI answered"
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(1)
    raise AssertionError(f"the UI did not answer on port {port} in {START_SECONDS} s")


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    vault = shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    path = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]}).config_path
    settings = yaml.safe_load(path.read_text(encoding="utf-8"))
    path.write_text(yaml.safe_dump({**settings, "watch": {"settle_seconds": 0}}), encoding="utf-8")
    return path


def _up(config: Path, port: int) -> subprocess.Popen[bytes]:
    """`mnemo up` as its own process; its output goes to a file (a pipe would stay open, and
    waiting on it would wait for whatever outlived the process)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "MNEMO_CONFIG")}
    argv = [sys.executable, "-m", "mnemo.cli.main", "up", "--config", str(config), "--port", str(port)]
    with (config.parent / "up.log").open("wb") as log:
        return subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)


def _stop(child: subprocess.Popen[bytes], config: Path) -> str:
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=60)
    return (config.parent / "up.log").read_text(encoding="utf-8", errors="replace")


def test_sigterm_stops_the_webserver_the_daemon_and_what_they_started(config: Path) -> None:
    port = _free_port()
    child = _up(config, port)
    try:
        _wait_for_ui(port, child)
        family = _family(child.pid)
        assert len(family) >= 3  # the code server, the webserver and the daemon at least
        servers = [_command(pid) for pid in family if "api grpc" in _command(pid)]
        assert len(servers) == 1, f"the daemon and the webserver share one code server: {[s[:90] for s in servers]}"
    finally:
        out = _stop(child, config)
    assert child.returncode == 0 and f"the UI is at http://127.0.0.1:{port}" in out and "mnemo stopped" in out
    assert not family & set(_processes()), "processes left behind after SIGTERM"
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5)


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _schedules(port: int) -> dict[str, str]:
    """The UI's code locations and their schedules: 'location/schedule' -> cron."""
    query = ("{ repositoriesOrError { ... on RepositoryConnection { nodes { location { name } "
             "schedules { name cronSchedule } } } } }")
    request = urllib.request.Request(f"http://127.0.0.1:{port}/graphql", data=json.dumps({"query": query}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        nodes = json.load(answer)["data"]["repositoriesOrError"].get("nodes", [])
    return {f"{n['location']['name']}/{s['name']}": s["cronSchedule"] for n in nodes for s in n["schedules"]}


def test_a_changed_schedule_in_mnemo_yaml_reaches_the_ui_while_up(config: Path) -> None:
    port = _free_port()
    child = _up(config, port)
    try:
        _wait_for_ui(port, child)
        before = _schedules(port)
        assert list(before.values()) == ["0 3 * * *"] and next(iter(before)).startswith("definitions/")
        settings = yaml.safe_load(config.read_text(encoding="utf-8"))
        config.write_text(yaml.safe_dump({**settings, "sleep": {"cron": "30 4 * * *"}}), encoding="utf-8")
        _wait_for_line(child, config, RELOADED)  # the event: `mnemo up` saw the change and the code server reloaded
        deadline = time.monotonic() + START_SECONDS
        while list(_schedules(port).values()) != ["30 4 * * *"]:
            assert child.poll() is None and time.monotonic() < deadline, "the new schedule never reached the UI"
            time.sleep(2)
    finally:
        out = _stop(child, config)
    assert RELOADED in out


RELOADED = "mnemo.yaml changed: the definitions were reloaded"


def _wait_for_line(child: subprocess.Popen[bytes], config: Path, line: str) -> None:
    """Until `mnemo up` has printed `line` to its log (the schedule can reach the UI before the
    reload helper has returned and `mnemo up` said so; stopping it then would cut the line off)."""
    log = config.parent / "up.log"
    deadline = time.monotonic() + START_SECONDS
    while line not in log.read_text(encoding="utf-8", errors="replace"):
        assert child.poll() is None and time.monotonic() < deadline, f"`mnemo up` never printed {line!r}"
        time.sleep(0.5)


def _ingested_by_a_file_drop_run(home: Path, files: NamespaceFiles, name: str, since: float) -> bool:
    """A run the file-drop sensor requested after `since` has succeeded, and the note is a document."""
    records = dg.DagsterInstance.from_config(str(home)).get_run_records()
    runs = [r.dagster_run for r in records if r.create_timestamp.timestamp() > since]
    done = any(r.tags.get("mnemo/trigger") == "file-drop" and r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
    return done and any(d.path.endswith(name) for d in files.read_documents())


def _sensor_watches(home: Path, namespace: str) -> bool:
    """The file-drop sensor has looked at the namespace once: its cursor holds the namespace's
    files, so a note written from now on is a change (one written before is its starting point)."""
    if not (home / "dagster.yaml").exists():
        return False
    for state in dg.DagsterInstance.from_config(str(home)).all_instigator_state():
        cursor = getattr(state.instigator_data, "cursor", None) or ""
        if state.name == "file_drop_sensor" and f'"{namespace}"' in cursor:
            return True
    return False


def test_a_dropped_note_is_ingested_while_mnemo_is_up(config: Path) -> None:
    port = _free_port()
    child = _up(config, port)
    note = config.parent / "vault" / "Inbox" / "Dropped while up.md"
    files = NamespaceFiles(config.parent / "data", "test")
    home = config.parent / ".dagster"
    ingested = False
    try:
        _wait_for_ui(port, child)
        deadline = time.monotonic() + START_SECONDS
        while not _sensor_watches(home, "test"):
            assert child.poll() is None and time.monotonic() < deadline, "the file-drop sensor never ran"
            time.sleep(2)
        dropped = time.time()
        note.write_text("# Dropped while up\n\nA heron-blue kayak for the river trip.\n", encoding="utf-8")
        deadline = time.monotonic() + INGEST_SECONDS
        while not ingested and time.monotonic() < deadline:
            assert child.poll() is None, "mnemo up ended"
            time.sleep(3)
            ingested = _ingested_by_a_file_drop_run(home, files, note.name, dropped)
    finally:
        out = _stop(child, config)
    assert ingested, out[-3000:]
