"""A newcomer's first hour, typed as they would type it in a folder of their own:
`mnemo init --obsidian VAULT`, `mnemo ingest`, `mnemo recall "..."` — no --config, no --namespace,
no DAGSTER_HOME — on a copy of a real vault."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support import corpus

MNEMO = str(Path(sys.executable).parent / "mnemo")
# The only setting given in advance: the hashing embedder, so the test needs no model.
SETTINGS = "embedder:\n  kind: hashing\n"


def _mnemo(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "MNEMO_CONFIG")}
    return subprocess.run([MNEMO, *args], cwd=home, env=env, capture_output=True, text=True, timeout=900)


def test_init_ingest_recall_on_a_real_vault(tmp_path: Path) -> None:
    vault = shutil.copytree(corpus("obsidian-ideaverse"), tmp_path / "ideaverse")
    home = tmp_path / "me"
    home.mkdir()
    (home / "mnemo.yaml").write_text(SETTINGS, encoding="utf-8")
    init = _mnemo(home, "init", "--obsidian", str(vault))
    assert init.returncode == 0, init.stderr
    assert f"found obsidian {vault}: " in init.stdout and "'me' is the default namespace" in init.stdout
    ingest = _mnemo(home, "ingest")
    assert ingest.returncode == 0, ingest.stderr[-3000:]
    assert "me entity_graph done in" in ingest.stdout and "passages" in ingest.stdout
    assert (home / ".dagster" / "dagster.yaml").exists() and (home / ".mnemo" / "me").is_dir()
    recall = _mnemo(home, "recall", "which podcast player do we use?", "--k", "3", "--json")
    assert recall.returncode == 0, recall.stderr
    paths = [item["path"] for item in json.loads(recall.stdout)["items"]]
    assert "Pocket Casts.md" in paths
