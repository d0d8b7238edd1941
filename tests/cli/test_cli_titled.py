"""The memory vocabulary through the `mnemo` command: remember then recall in separate processes with
no Dagster, and save / read / exists / append / list / get-memory / forget --title / recall options."""

import json
import os
import subprocess
import sys

from typer.testing import CliRunner

from mnemo.cli.main import app
from tests.support import Workspace

MNEMO = [sys.executable, "-m", "mnemo.cli.main"]
ZEPHYRINE = "Lunch with Zephyrine Okafor at the harbour cafe; she is moving to Oslo in March."


def run(workspace: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MNEMO, *args, "-n", "test", "--config", str(workspace.config_path)],
                          capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=300)


def test_remember_then_the_first_recall_finds_it_each_in_its_own_process(workspace: Workspace) -> None:
    workspace.ingest()
    made = run(workspace, "remember", ZEPHYRINE, "--scope", "session:lunch", "--ttl", "1h", "--json")
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["status"] == "recallable"
    found = run(workspace, "recall", "Where is Zephyrine moving?", "--session", "lunch", "--json")
    assert found.returncode == 0, found.stderr
    first = json.loads(found.stdout)["items"][0]
    assert first["text"] == ZEPHYRINE and first["metadata"]["scope"] == "session:lunch"
    assert first["metadata"]["expires_at"] == json.loads(made.stdout)["expires_at"]
    shown = run(workspace, "remember", "The harbour cafe closes at six.", "--scope", "session:lunch")
    assert "(session:lunch, status: recallable)" in " ".join(shown.stdout.split())


def invoke(workspace: Workspace, *args: str) -> tuple[int, str]:
    out = CliRunner().invoke(app, [*args, "-n", "test", "--config", str(workspace.config_path)])
    return out.exit_code, out.output


def test_titled_memories_through_the_cli(workspace: Workspace) -> None:
    code, out = invoke(workspace, "save", "Packing list", "Boxes for the books.", "--scope", "project:move", "--json")
    assert code == 0, out
    saved = json.loads(out)
    assert saved["title"] == "Packing list" and saved["status"] == "recallable"
    assert invoke(workspace, "exists", "Packing list", "--scope", "project:move")[0] == 0
    assert invoke(workspace, "exists", "Packing list")[0] == 1  # not in the global scope
    code, out = invoke(workspace, "append", "Packing list", "Tape for the kitchen boxes.", "--scope", "project:move")
    assert code == 0 and "appended to" in out
    code, out = invoke(workspace, "read", "Packing list", "--scope", "project:move", "--json")
    read = json.loads(out)
    assert read["text"] == "Boxes for the books.\n\nTape for the kitchen boxes." and len(read["history"]) == 1
    code, out = invoke(workspace, "list", "--scope", "project:move", "--json")
    assert code == 0 and [(m["title"], m["scope"]) for m in json.loads(out)] == [("Packing list", "project:move")]
    code, out = invoke(workspace, "get-memory", saved["id"], "--scope", "project:move", "--json")
    assert code == 0 and json.loads(out)["id"] == saved["id"]
    code, out = invoke(workspace, "get-memory", saved["id"], "--scope", "global")
    assert code == 2 and "no memory" in out
    code, out = invoke(workspace, "save", "Packing  list", "x")
    assert code == 2 and "run of several non-word characters" in " ".join(out.split())
    code, out = invoke(workspace, "forget", "--title", "Packing list", "--scope", "project:move", "--json")
    assert code == 0 and [i["memory"] for i in json.loads(out)["items"]] == [saved["id"]]
    assert invoke(workspace, "exists", "Packing list", "--scope", "project:move")[0] == 1


def test_recall_limit_k_and_min_similarity_through_the_cli(workspace: Workspace) -> None:
    workspace.ingest()
    question = ["recall", "Dana Kim advice about meetings", "--json"]
    by_limit = json.loads(invoke(workspace, *question, "--limit", "3")[1])["items"]
    by_k = json.loads(invoke(workspace, *question, "--k", "3")[1])["items"]
    assert len(by_limit) == 3 and [i["id"] for i in by_limit] == [i["id"] for i in by_k]
    floor = sorted(i["similarity"] for i in by_limit)[1]
    kept = json.loads(invoke(workspace, *question, "--limit", "3", "--min-similarity", str(floor))[1])["items"]
    assert kept and all(i["similarity"] >= floor for i in kept)
    assert invoke(workspace, *question, "--min-similarity", "2")[0] == 2
