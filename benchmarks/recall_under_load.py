"""Recall latency and failures for concurrent callers while an ingest writes the same namespace.

Usage: .venv/bin/python benchmarks/recall_under_load.py [--vault examples/vault] [--threads 4] [--processes 2]
The namespace first holds a few notes; then a child process ingests the whole vault while
the callers (threads of this process and separate processes) recall in a loop. Prints
calls, failures, degraded calls (graph busy: answered from vectors only) and latency.
"""

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.crash import Setup, child_context, run_in_child, warm_up  # noqa: E402
from tests.support.load import Calls, call_until, collect, start_processes  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        vault = work / "vault"
        notes = sorted(p for p in args.vault.rglob("*.md") if ".obsidian" not in p.parts)
        for note in notes[:5]:
            target = vault / note.relative_to(args.vault)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(note, target)
        setup = Setup(work / "ws", [{"kind": "obsidian", "path": str(vault)}])
        assert setup.run()
        shutil.copytree(args.vault, vault, dirs_exist_ok=True)
        warm_up()
        idle, done = Calls(), threading.Event()
        done.set()  # no writer: just the minimum number of calls
        call_until(str(setup.data_dir), "test", done, 20, idle)
        stop = threading.Event()
        calls = [Calls() for _ in range(args.threads)]
        threads = [threading.Thread(target=call_until, args=(str(setup.data_dir), "test", stop, 3, c)) for c in calls]
        procs = start_processes(setup.data_dir, "test", work, args.processes, 3)
        for thread in threads:
            thread.start()
        began = time.perf_counter()
        writer = child_context().Process(target=run_in_child, args=(str(setup.root), setup.sources))
        writer.start()
        writer.join()
        write_seconds = time.perf_counter() - began
        stop.set()
        (work / "stop").touch()
        total = Calls()
        for thread, c in zip(threads, calls):
            thread.join()
            total.merge(c)
        collect(procs, total)
    print(f"idle (1 caller, no writer): {idle.summary()}")
    print(f"during the ingest ({len(notes)} notes, {write_seconds:.1f} s, writer exit code {writer.exitcode}), "
          f"{args.threads} threads + {args.processes} processes: {total.summary()}")
    for failure in total.failures[:5]:
        print("  failure:", failure)
    return 1 if total.failures or writer.exitcode else 0


if __name__ == "__main__":
    sys.exit(main())
