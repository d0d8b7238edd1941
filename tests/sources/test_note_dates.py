"""A note's date comes from what its owner wrote (journal day, date properties, a date in its
title or folders, dated items inside it), never from the file's time alone; an undated note
has no date and `--since/--until` (which bound dated items) keep it."""

import datetime as dt
import json
import os
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.documents import Document, chunk_document, dated
from mnemo.note_dates import passage_day
from tests.support import Workspace, make_workspace

TODAY = dt.date(2026, 11, 29)
runner = CliRunner()


def _doc(path: str, properties: dict[str, object] | None = None, day: str | None = None) -> Document:
    title = Path(path).stem
    return Document(id="d", namespace="ns", source="s", path=path, title=title, kind="journal" if day else "note",
                    body="text", content_hash="h", properties=properties or {}, day=day,
                    modified="2026-11-28T10:00:00+00:00")


@pytest.mark.parametrize(("path", "properties", "day", "created", "source"), [
    ("Daily/2023-06-14.md", {}, "2023-06-14", "2023-06-14", "journal"),
    ("Juju.md", {"created-at": "2024-04-12"}, None, "2024-04-12", "frontmatter:created-at"),
    ("Juju.md", {"created_at": "2024-04-12 09:30"}, None, "2024-04-12T09:30", "frontmatter:created_at"),
    ("Juju.md", {"Created": dt.date(2024, 4, 12)}, None, "2024-04-12", "frontmatter:Created"),
    ("Juju.md", {"date": "[[2024-04-12]]"}, None, "2024-04-12", "frontmatter:date"),
    ("Clippings/Buy wisely.md", {"clipped": "2023-11-18", "published": "2023-09-29"}, None, "2023-11-18",
     "frontmatter:clipped"),  # a clipping was written into the vault the day it was clipped
    ("pages/juju.md", {"created-at": "1712910600000"}, None, "2024-04-12T08:30:00+00:00", "frontmatter:created-at"),
    ("Notes/2023-06-14 Meeting.md", {}, None, "2023-06-14", "title"),
    ("Zettel/202306141230 Evergreen idea.md", {}, None, "2023-06-14", "title"),
    ("1706782930-grafo.md", {}, None, "2024-02-01", "title"),
    ("log/2023/06/standup.md", {}, None, "2023-06-01", "path"),
    ("log/2023/06/14/standup.md", {}, None, "2023-06-14", "path"),
    ("pnpm.md", {}, None, None, "none"),
    ("9999999999-future.md", {}, None, None, "none"),  # a Unix time after today is no date
    ("0123456789 code.md", {}, None, None, "none"),
    ("209912311200 zettel.md", {}, None, None, "none"),  # a zettel id after today
])
def test_a_notes_date_and_where_it_came_from(path: str, properties: dict[str, object], day: str | None,
                                             created: str | None, source: str) -> None:
    found = dated(_doc(path, properties, day), TODAY)
    assert (found.created, found.date_source) == (created, source)


@pytest.mark.parametrize(("heading", "text", "day"), [
    ("Changelog > 1.4.0 (2024-03-02)", "- Fixed the sync", "2024-03-02"),
    ("Beta 0.10.15 [[Dec 1st, 2025]] > Fixed issues", "Fix: embeds", "2025-12-01"),
    ("Log", "- 2025-03-14: moved the server to the new rack", "2025-03-14"),
    ("Log", "* [x] **2025-03-14** moved the server", "2025-03-14"),
    ("Log", "14 March 2024 the roof was fixed", "2024-03-14"),
    ("Ideas", "A thought about 2025-03-14 written in the middle", None),
    ("", "version 1.2.3 notes", None),
])
def test_dated_items_date_their_own_passages(heading: str, text: str, day: str | None) -> None:
    assert passage_day(heading, text) == day


def test_a_changelog_dates_each_release_and_an_undated_note_has_no_date() -> None:
    body = "# Changelog\n\n## 1.4.0 (2024-03-02)\n\n- Faster sync\n\n## 1.3.0 (2023-11-20)\n\n- Dark mode\n"
    doc = dated(_doc("Changelog.md"), TODAY)
    stamps = [c.timestamp for c in chunk_document(Document(**{**doc.__dict__, "body": body}))]
    assert stamps == ["2024-03-02", "2023-11-20"]
    undated = dated(_doc("pnpm.md"), TODAY)
    assert [c.timestamp for c in chunk_document(undated)] == [None]  # not the file's time


@pytest.fixture
def vault_workspace(tmp_path: Path) -> tuple[Workspace, Path]:
    vault = tmp_path / "vault"
    (vault / "People").mkdir(parents=True)
    notes = {
        "pnpm.md": "pnpm keeps one content-addressed store of packages for every project.\n",
        "People/Dana Kim.md": "---\ntype: person\ncreated: 2023-06-14\n---\nVP Engineering.\n",
        "People/Sam Rivera.md": "---\ntype: person\n---\nDesigner.\n",
    }
    for rel, text in notes.items():
        (vault / rel).write_text(text, encoding="utf-8")
        os.utime(vault / rel, (1_790_000_000, 1_790_000_000))  # 2026-09: the day the vault was copied
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    return workspace, vault


def test_an_undated_note_is_kept_by_since_and_until(vault_workspace: tuple[Workspace, Path]) -> None:
    workspace, _ = vault_workspace
    args = ["recall", "pnpm content-addressed store", "-n", "test", "--json", "--config", str(workspace.config_path)]
    for bounds in (["--until", "2023-12-31"], ["--since", "2025-01-01"]):
        result = runner.invoke(app, [*args, *bounds])
        assert result.exit_code == 0, result.output
        assert "pnpm.md" in {i["path"] for i in json.loads(result.output)["items"]}, bounds
    result = runner.invoke(app, [*args, "--since", "2024-01-01"])
    assert "People/Dana Kim.md" not in {i["path"] for i in json.loads(result.output)["items"]}  # dated 2023


def test_entity_says_when_its_note_was_written_and_from_what(vault_workspace: tuple[Workspace, Path]) -> None:
    workspace, _ = vault_workspace
    config = ["-n", "test", "--config", str(workspace.config_path)]
    shown = runner.invoke(app, ["entity", "person_id:dana_kim", *config])
    assert shown.exit_code == 0, shown.output
    assert "written: 2023-06-14" in shown.output and "frontmatter:created" in shown.output
    undated = runner.invoke(app, ["entity", "person_id:sam_rivera", "--json", *config])
    assert json.loads(undated.output)["written"] == {"date": None, "date_source": "none"}


def test_documents_stored_before_dates_were_recorded_are_read_again(vault_workspace: tuple[Workspace, Path]) -> None:
    workspace, _ = vault_workspace
    path = workspace.files().root / "documents.parquet"
    pl.read_parquet(path).drop("date_source").write_parquet(path)  # as an older mnemo wrote it
    assert {d.date_source for d in workspace.files().read_documents()} == {""}
    workspace.ingest()
    docs = {d.path: d for d in workspace.files().read_documents()}
    assert docs["pnpm.md"].date_source == "none" and docs["People/Dana Kim.md"].created == "2023-06-14"
    stamps = {c.path: c.timestamp for c in workspace.files().read_chunks()}
    assert stamps["pnpm.md"] is None and stamps["People/Dana Kim.md"] == "2023-06-14"
