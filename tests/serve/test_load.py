"""Concurrent recall callers (threads and processes) while an ingest writes: no call fails.

benchmarks/recall_under_load.py runs the same with more callers and a longer write, and
prints the latency figures.
"""

import shutil
import threading
from pathlib import Path

import pytest

from tests.stores.test_crash_consistency import SMALL_VAULT, small_vault
from tests.support import EXAMPLE_VAULT
from tests.support.crash import Setup, child_context, run_in_child, warm_up
from tests.support.load import Calls, call_until, collect, start_processes

pytestmark = pytest.mark.slow  # over 20 s on two cores


def test_recall_callers_never_fail_while_an_ingest_writes(tmp_path: Path) -> None:
    vault = small_vault(tmp_path / "vault")
    setup = Setup(tmp_path / "ws", [{"kind": "obsidian", "path": str(vault)}])
    assert setup.run()
    shutil.copytree(EXAMPLE_VAULT / "People", vault / "People", dirs_exist_ok=True)  # 9 new notes to ingest
    warm_up()
    stop = threading.Event()
    calls = [Calls()]
    threads = [threading.Thread(target=call_until, args=(str(setup.data_dir), "test", stop, 5, c)) for c in calls]
    procs = start_processes(setup.data_dir, "test", tmp_path, count=1, min_calls=5)
    for thread in threads:
        thread.start()
    writer = child_context().Process(target=run_in_child, args=(str(setup.root), setup.sources))
    writer.start()
    writer.join(120)
    stop.set()
    (tmp_path / "stop").touch()
    for thread in threads:
        thread.join()
    total = Calls()
    for c in calls:
        total.merge(c)
    collect(procs, total)
    summary = total.summary()
    print("recall under load:", summary)
    assert writer.exitcode == 0, "the ingest failed while readers were calling"
    assert total.failures == [] and summary["calls"] >= 15
    assert len(setup.dump()["documents"]) == len(SMALL_VAULT) + 9
