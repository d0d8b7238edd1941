"""`python -m mnemo_dagster.jobs.code_server`, which `mnemo up` runs to wait for its code server and to reload it:
a server that never answers is reported after the given time, and a wrong call prints its usage.
(A server that answers is `mnemo up`'s own test, tests/cli/test_up_cli.py.)"""

import socket
import subprocess
import sys

from tests.support import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mnemo_dagster.jobs.code_server", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=False)


def test_a_code_server_that_never_answers_is_reported_after_the_given_time() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    waited = run("wait", str(port), "1")
    assert waited.returncode == 2 and "not loaded in 1 s" in waited.stderr
    reloaded = run("reload", str(port), "1")
    assert reloaded.returncode == 2 and reloaded.stderr.strip()


def test_a_wrong_call_prints_how_to_call_it() -> None:
    for args in ((), ("start", "4000"), ("wait", "port")):
        wrong = run(*args)
        assert wrong.returncode == 2 and "python -m mnemo_dagster.jobs.code_server wait PORT" in wrong.stderr
