"""API keys changed by many processes at once: none is lost, a revoked key never comes back."""

import os
import subprocess
import sys
import time
from pathlib import Path

from mnemo.serve.api_keys import KeyStore

CREATES = 14
REVOKES = 6

# One key change in its own process: it says it is ready, waits for the start file, then acts.
CHILD = """
import sys, time
from pathlib import Path
from mnemo.serve.api_keys import KeyStore
data_dir, ready, go, op, arg = sys.argv[1:]
store = KeyStore(data_dir)
Path(ready).touch()
while not Path(go).exists():
    time.sleep(0.01)
if op == "create":
    key, token = store.create(arg, "race")
    print(token)
else:
    print(store.revoke(arg).id)
"""


def _race(data_dir: Path, ops: list[tuple[str, str]]) -> list[str]:
    """Run each (op, arg) in its own process, all released at once; their printed lines."""
    go = data_dir.parent / "go"
    procs, readies = [], []
    for index, (op, arg) in enumerate(ops):
        ready = data_dir.parent / f"ready-{index}"
        readies.append(ready)
        procs.append(subprocess.Popen([sys.executable, "-c", CHILD, str(data_dir), str(ready), str(go), op, arg],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ)))
    while not all(r.exists() for r in readies):
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs if p.poll() is not None]
        time.sleep(0.02)
    go.touch()
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    return [out.strip() for out, _ in outputs]


def test_twenty_processes_creating_and_revoking_keys_lose_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store = KeyStore(data_dir)
    doomed = [store.create("race", "doomed") for _ in range(REVOKES)]
    ops = [("create", "race")] * CREATES + [("revoke", key.id) for key, _ in doomed]
    printed = _race(data_dir, ops)
    created, revoked = printed[:CREATES], printed[CREATES:]
    assert sorted(revoked) == sorted(key.id for key, _ in doomed)
    listed = {key.id for key in store.keys()}
    assert listed == {token.split("_")[1] for token in created}
    assert all(store.namespace_of(token) == "race" for token in created)
    assert all(store.namespace_of(token) is None for _, token in doomed)
