"""Dagster's run history keeps no user text: after a remembered memory is ingested through a
real instance (its own DAGSTER_HOME, the repository's dagster.yaml) and forgotten, no file
under DAGSTER_HOME holds any of its words (the assets' metadata and logs carry counts and ids)."""

import shutil
from pathlib import Path

import dagster as dg

from mnemo.client import MemoryClient
from tests.support import REPO, make_workspace

MARKER = b"qzxmarker"  # in the memory's text, its title and the name of an entity it names


def _files_holding(home: Path, marker: bytes) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and marker in p.read_bytes().lower())


def test_forgotten_memories_leave_no_text_in_dagster_history(tmp_path: Path, small_vault: Path) -> None:
    home = tmp_path / "dagster_home"
    home.mkdir()
    shutil.copy(REPO / "dagster.yaml", home / "dagster.yaml")
    with dg.DagsterInstance.from_config(str(home)) as instance:
        workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(small_vault)}]})
        workspace.instance = instance
        client = MemoryClient("test", workspace.config_path)
        plain = client.remember("Lunch with person_id:qzxmarker_zed about the qzxmarker plan")
        client.save("Qzxmarker budget", "The qzxmarker budget is 40k")
        client.remember("Scoped qzxmarker note for person_id:qzxmarker_ray", scope="project:alpha")
        workspace.ingest()
        client.forget(plain.id)
        client.forget(title="Qzxmarker budget")
        client.forget(scope="project:alpha")
        workspace.ingest()
    assert len(list((home / "history" / "runs").glob("*.db"))) >= 2
    assert _files_holding(home, MARKER) == []
