"""The same vault ingested on Kùzu and on LadybugDB holds the same memory (equal canonical dumps:
graph, vectors, manifest, documents, chunks, problems) and answers recall the same (the same items
with the same scores). Each engine runs in a process of its own, on one copy of the vault."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mnemo.maintenance.dump import differences
from tests import support
from tests.support import EXAMPLE_VAULT, REPO

QUESTIONS = {
    "example": ["Who leads Project Heron and what is it about?", "Dana Kim", "What happened on 2026-09-03?"],
    "kepano": ["How do I organise my notes?", "What do I use Obsidian for?", "Clippings"],
}


def _held(root: Path, vault: Path, engine: str, questions: list[str]) -> dict[str, object]:
    """What the vault holds and answers when ingested on `engine` (see tests.support.engine_run)."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.engine_run", str(root / engine), str(vault), engine, *questions],
        capture_output=True, text=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _assert_same_on_both_engines(tmp_path: Path, source: Path, questions: list[str]) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(source, vault)
    kuzu, ladybug = (_held(tmp_path, vault, engine, questions) for engine in ("kuzu", "ladybug"))
    assert (kuzu["built_with"], ladybug["built_with"]) == ("kuzu", "ladybug")
    assert differences(kuzu["dump"], ladybug["dump"]) == []  # type: ignore[arg-type]
    assert kuzu["answers"] == ladybug["answers"]
    assert all(kuzu["answers"].values())  # type: ignore[attr-defined]


@pytest.mark.slow
def test_the_example_vault_ingests_and_recalls_identically_on_both_engines(tmp_path: Path) -> None:
    _assert_same_on_both_engines(tmp_path, EXAMPLE_VAULT, QUESTIONS["example"])


@pytest.mark.slow
@pytest.mark.corpora  # (marked here: the module imports no `corpus`, so that the example's test is not marked)
def test_a_real_vault_ingests_and_recalls_identically_on_both_engines(tmp_path: Path) -> None:
    _assert_same_on_both_engines(tmp_path, support.corpus("obsidian-kepano"), QUESTIONS["kepano"])
