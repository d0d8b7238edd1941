"""Forgetting what a query finds removes the passage's text from every file mnemo keeps, the
documents' state included, and leaves the rest of its note."""

from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from tests.support import daily_notes_workspace
from tests.support.needles import holders

NOTE = ("# Lunch\n\nLunch with Bob at the usual noodle place.\n\n"
        "# Allotment\n\nThe gate code of the allotment is walrus-3318.")
NEEDLE = "walrus-3318"
KEPT = "usual noodle place"


def test_forget_query_removes_the_passage_from_the_documents_too(tmp_path: Path) -> None:
    workspace, vault = daily_notes_workspace(tmp_path, {"2026-09-01": NOTE})
    root = workspace.files().root
    assert "documents.parquet" in holders(root, NEEDLE)
    result = CliRunner().invoke(app, ["forget", "--query", "allotment gate code walrus-3318", "--yes", "-n", "test",
                                      "--config", str(workspace.config_path)])
    assert result.exit_code == 0 and "forgot: 1 passages" in result.output, result.output
    assert holders(root, NEEDLE) == []
    assert "documents.parquet" in holders(root, KEPT)
    workspace.ingest()
    assert holders(root, NEEDLE) == [] and "documents.parquet" in holders(root, KEPT)
    note = vault / "Daily" / "2026-09-01.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n\n# Garden\n\nBought seeds.\n", encoding="utf-8")
    workspace.ingest()  # the note is read again: the forgotten passage's text is still not kept
    assert holders(root, NEEDLE) == [] and "documents.parquet" in holders(root, "Bought seeds")
