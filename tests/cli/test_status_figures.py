"""`mnemo status` shows what a fresh count of the stores shows, after an ingest, a remember, a
forget and another ingest; and a status of an unchanged namespace opens neither the graph nor the
vector tables: in a fresh interpreter it loads no store or dataframe library (checked by the modules
it holds, not by a time)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.sources.memory_files import pending_memories
from tests.support import Workspace

runner = CliRunner()
STORE_LIBRARIES = ("kuzu", "ladybug", "real_ladybug", "lancedb", "polars", "pyarrow", "numpy", "torch",
                   "sentence_transformers", "dagster")
STATUS_IN_A_NEW_PROCESS = """
import contextlib, io, json, sys
from typer.main import get_command
from mnemo.cli.main import app

shown = io.StringIO()
with contextlib.redirect_stdout(shown):
    get_command(app).main(["status", "--json", "-n", "test", "--config", sys.argv[1]], prog_name="mnemo",
                          standalone_mode=False)
print(json.dumps({"status": json.loads(shown.getvalue()), "loaded": sorted(m for m in sys.argv[2:] if m in sys.modules)}))
"""


def status(workspace: Workspace) -> dict[str, int]:
    result = runner.invoke(app, ["status", "--json", "-n", "test", "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    counts: dict[str, int] = json.loads(result.output)["counts"]
    return counts


def fresh_counts(workspace: Workspace) -> dict[str, int]:
    """Every figure counted from the stores themselves, keeping nothing."""
    files, vectors = workspace.files(), workspace.vectors()
    ingested = {d.id for d in files.read_documents()}
    return {**workspace.graph().counts(),
            "chunk vectors": len(vectors.rows("chunks", ["id"])), "entity vectors": len(vectors.rows("entities", ["id"])),
            "problem files": len({p["path"] for p in files.read_problems()}),
            "pending memories": pending_memories(files.root, "test", ingested)}


def status_in_a_new_process(workspace: Workspace) -> tuple[dict[str, int], list[str]]:
    done = subprocess.run([sys.executable, "-c", STATUS_IN_A_NEW_PROCESS, str(workspace.config_path),
                           *STORE_LIBRARIES], capture_output=True, text=True, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    return seen["status"]["counts"], seen["loaded"]


@pytest.mark.slow  # two ingests and two fresh interpreters
def test_status_shows_fresh_counts_after_every_write_and_opens_no_store_when_unchanged(
    workspace: Workspace, vault: Path,
) -> None:
    workspace.ingest()  # keeps what it counted of what it wrote
    assert status_in_a_new_process(workspace) == (fresh_counts(workspace), [])
    assert status(workspace) == fresh_counts(workspace)

    remembered = runner.invoke(app, ["remember", "the spare key is under the blue pot", "-n", "test", "--json",
                                     "--config", str(workspace.config_path)])
    assert remembered.exit_code == 0, remembered.output
    after_remember, loaded = status_in_a_new_process(workspace)
    assert after_remember == fresh_counts(workspace) and after_remember["pending memories"] == 1 and loaded == []

    forgot = runner.invoke(app, ["forget", "--memory", json.loads(remembered.output)["id"], "-n", "test",
                                 "--config", str(workspace.config_path)])
    assert forgot.exit_code == 0, forgot.output
    assert status(workspace) == fresh_counts(workspace)

    (vault / "Boat trip.md").write_text(
        "# Boat trip\nWe sailed to [[Alice Chen]]'s island with Rui.\n", encoding="utf-8")
    workspace.ingest()
    assert status(workspace) == fresh_counts(workspace)
    assert status_in_a_new_process(workspace) == (fresh_counts(workspace), [])


def test_status_counts_the_note_cards_and_says_what_they_are_for_where_a_namespace_has_them(
    workspace: Workspace,
) -> None:
    from mnemo.recall.note_cards import update_cards
    from mnemo.stores.embedders import HashingEmbedder

    workspace.ingest()
    assert "note cards" not in status(workspace)  # the example's notes are English: no cards
    update_cards(workspace.vectors(), workspace.files().read_documents, True, HashingEmbedder())
    cards = len(workspace.vectors().rows("note_cards", ["id"]))
    assert cards > 0 and status(workspace)["note cards"] == cards
    shown = runner.invoke(app, ["status", "-n", "test", "--config", str(workspace.config_path)])
    assert shown.exit_code == 0 and f"note cards: {cards}, one multilingual e5 vector per note" in shown.output
