"""`mnemo up` at its default level: a sensor's request and the run it starts are a line each,
the sensors' routine checks say nothing, and no colour code reaches the log file."""

import re
import time
from pathlib import Path

import pytest

from tests.cli.test_up_cli import INGEST_SECONDS, _free_port, _stop, _up, _wait_for_ui
from tests.cli.test_up_cli import config as config  # noqa: F401  (the fixture)

FINISHED = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d run [0-9a-f]{8} of ingest_job succeeded in \d+ s$", re.M)


@pytest.mark.slow
def test_up_says_one_line_per_request_and_run_and_nothing_at_rest(config: Path) -> None:  # noqa: F811
    port = _free_port()
    child = _up(config, port)
    log = config.parent / "up.log"
    try:
        _wait_for_ui(port, child)
        deadline = time.monotonic() + INGEST_SECONDS
        while not FINISHED.search(log.read_text(encoding="utf-8", errors="replace")):
            assert child.poll() is None and time.monotonic() < deadline, "the first ingest never finished"
            time.sleep(2)
    finally:
        out = _stop(child, config)
    assert re.search(r"namespaces_sensor requested run [0-9a-f]{8}\n", out), out[-3000:]
    assert re.search(r"run [0-9a-f]{8} of ingest_job started\n", out), out[-3000:]
    assert "Checking for new runs" not in out and " - DEBUG - " not in out and " - INFO - " not in out, out[-3000:]
    assert "\x1b[" not in out
