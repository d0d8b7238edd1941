"""What a killed write-back leaves in a vault (`.<note>.XXXXXXXX.mnemo-tmp`) is swept by the
next write-back and by an undo, and only files of exactly that shape are removed."""

from pathlib import Path

import pytest

from mnemo.writeback.run import undo_namespace, writeback_namespace
from ontology import load_ontology
from tests.stores.test_crash_consistency import small_vault
from tests.support import Workspace, make_workspace

LEFTOVERS = ("People/.Alice Chen.md.k3j_9x0a.mnemo-tmp", ".2026-09-01.md.abcdefgh.mnemo-tmp")
THE_USERS = ("People/.Alice Chen.md.mnemo-tmp", "People/notes.mnemo-tmp", ".x.md.ABCDEFGH.mnemo-tmp",
             ".x.md.abcdefgh.mnemo-tmp.bak")


@pytest.fixture
def written(tmp_path: Path) -> tuple[Workspace, str]:
    vault = small_vault(tmp_path / "vault")
    ws = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    ws.ingest()
    _, report = writeback_namespace(ws.config, "test", load_ontology(), today="2026-11-22")
    assert report.written
    return ws, report.run


def _plant(vault: Path) -> None:
    for rel in (*LEFTOVERS, *THE_USERS):
        (vault / rel).write_text("half a note", encoding="utf-8")


def _present(vault: Path) -> set[str]:
    return {rel for rel in (*LEFTOVERS, *THE_USERS) if (vault / rel).exists()}


def test_undo_sweeps_a_killed_write_backs_temp_files(written: tuple[Workspace, str]) -> None:
    ws, run = written
    vault = ws.config.namespace("test").sources[0].path
    _plant(vault)
    undone = undo_namespace(ws.config, "test", run)
    assert undone.written
    assert _present(vault) == set(THE_USERS)


def test_the_next_write_back_sweeps_them_too(written: tuple[Workspace, str]) -> None:
    ws, _ = written
    vault = ws.config.namespace("test").sources[0].path
    _plant(vault)
    writeback_namespace(ws.config, "test", load_ontology(), today="2026-11-23")
    assert _present(vault) == set(THE_USERS)
