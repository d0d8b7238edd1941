"""Forget removes the text from every place mnemo keeps it: a byte search over the namespace
folder (graph file, LanceDB files, Parquet decoded, sleep files, caches), over an export and over
a backup made after the forget finds nothing, where before the forget it found the text."""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.client import MemoryClient
from tests.support import EXAMPLE_VAULT, Workspace, make_workspace
from tests.support.needles import holders, lance_versions_holding

pytestmark = pytest.mark.slow  # over 20 s on two cores

runner = CliRunner()
MEMORY_TEXT = "The locker code at the climbing gym is zebra-7731-quokka"
MEMORY_NEEDLE = "zebra-7731-quokka"
PROPERTY_NEEDLE = "quokka-5512"  # a property of an entity only the memory names
GIVEN_NEEDLE = "quokka-8841"  # a property the memory gives an entity of the vault
PAGE = "People/Dana Kim.md"
PAGE_NEEDLE = "If two teams own it, nobody owns it"  # only in Dana Kim's note
ENTITY_ID = "person_dana_kim"


def cli(workspace: Workspace, *args: str) -> str:
    result = runner.invoke(app, [*args, "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    return result.output


def archives(workspace: Workspace, tag: str) -> tuple[Path, Path]:
    export, backup = workspace.root / f"export-{tag}", workspace.root / f"backup-{tag}.tar.gz"
    cli(workspace, "export", str(export), "-n", "test")
    cli(workspace, "backup", str(backup), "-n", "test")
    return export, backup


@pytest.fixture
def remembered(tmp_path: Path) -> Workspace:
    """The example vault and one memory, ingested, consolidated and written back (hashing embedder)."""
    shutil.copytree(EXAMPLE_VAULT, tmp_path / "vault")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(tmp_path / "vault")}]})
    workspace.ingest()
    MemoryClient("test", workspace.config_path).remember(
        MEMORY_TEXT, [{"person_id": "locker_buddy", "properties": {"locker": PROPERTY_NEEDLE}},
                      {"person_id": "alice_chen", "properties": {"gym_locker": GIVEN_NEEDLE}}])
    workspace.ingest()
    cli(workspace, "sleep", "-n", "test")
    cli(workspace, "writeback", "-n", "test")
    return workspace


def _assert_found_before(workspace: Workspace, needle: str) -> None:
    root = workspace.files().root
    held = holders(root, needle)
    assert "graph.kuzu" in held and "documents.parquet" in held and "chunks.parquet" in held, held
    assert any(h.startswith("lance/chunks.lance/data/") for h in held), held
    assert lance_versions_holding(root / "lance", needle)
    export, backup = archives(workspace, "before-" + needle[:6])
    assert holders(export, needle) and holders(backup, needle)


def _assert_gone(workspace: Workspace, needle: str) -> None:
    root = workspace.files().root
    assert holders(root, needle) == []
    assert lance_versions_holding(root / "lance", needle) == []
    export, backup = archives(workspace, "after-" + needle[:6])
    assert holders(export, needle) == [] and holders(backup, needle) == []


def test_forget_memory_leaves_no_byte_of_it(remembered: Workspace) -> None:
    _assert_found_before(remembered, MEMORY_NEEDLE)
    for needle in (PROPERTY_NEEDLE, GIVEN_NEEDLE):
        assert "graph.kuzu" in holders(remembered.files().root, needle)
    memory = json.loads(cli(remembered, "recall", "climbing gym locker code", "-n", "test", "--json"))["items"][0]
    assert MEMORY_NEEDLE in memory["text"]
    memory_id = next(p.stem for p in (remembered.files().root / "inbox").glob("mem_*.json"))
    assert "forgot" in cli(remembered, "forget", "--memory", memory_id, "-n", "test")
    _assert_gone(remembered, MEMORY_NEEDLE)
    for needle in (PROPERTY_NEEDLE, GIVEN_NEEDLE):
        assert holders(remembered.files().root, needle) == []
        assert lance_versions_holding(remembered.files().root / "lance", needle) == []
    remembered.ingest()
    cli(remembered, "sleep", "-n", "test")
    assert holders(remembered.files().root, MEMORY_NEEDLE) == []


def test_forget_entity_leaves_no_byte_of_its_page_and_only_mnemos_block_leaves_its_note(remembered: Workspace) -> None:
    note = remembered.root / "vault" / PAGE
    written = note.read_text(encoding="utf-8")
    assert "\nmnemo-updated: " in written and written != (EXAMPLE_VAULT / PAGE).read_text(encoding="utf-8")
    _assert_found_before(remembered, PAGE_NEEDLE)
    root = remembered.files().root
    assert {"sleep/overlay/communities.json", "sleep/overlay/salience.json"} <= set(holders(root, ENTITY_ID))
    report = json.loads(cli(remembered, "forget", "--entity", "person_id:dana_kim", "-n", "test", "--json"))
    _assert_gone(remembered, PAGE_NEEDLE)
    # The id stays where it keeps the entity out, and in the structural extractor's cache of the other
    # notes that still link to it (their links, resolved; the tombstone drops them after extraction).
    assert [h for h in holders(root, ENTITY_ID) if not h.startswith("structural_cache/")] == ["tombstones.json"]
    assert note.read_bytes() == (EXAMPLE_VAULT / PAGE).read_bytes()  # the person's note, exactly as they wrote it
    assert report["notes"] == [PAGE] and report["writeback_run"]
    remembered.ingest()  # the note is read again: its text is still not kept
    cli(remembered, "sleep", "-n", "test")
    assert holders(remembered.files().root, PAGE_NEEDLE) == []
    cli(remembered, "writeback", "-n", "test", "--undo", report["writeback_run"])
    assert note.read_text(encoding="utf-8") == written
