"""Write-back in each app's own forms: old nested blocks converted (journaled, undoable), and day
links in the Logseq graph's own journal title format, pointing only at journal pages that exist."""

import re
import shutil
from pathlib import Path

import pytest

from benchmarks.writeback import snapshot
from mnemo.maintenance.forget_notes import block_removal, remove_blocks
from mnemo.stores.forget_journal import PageRef
from mnemo.writeback.journal import JournalEntry
from mnemo.writeback.note_files import digest
from mnemo.writeback.run import journal_for, source_roots, undo_run, writeback_namespace
from ontology import load_ontology
from tests.support import EXAMPLE_VAULT, Workspace, make_workspace

OLD_BLOCK = (
    'mnemo:\n  about:\n    - "person_id:alice_chen"\n  related:\n    - "[[Project Heron]]"\n'
    '  salience: 1.0\n  consolidated: "2026-01-01"\n'
)


def test_an_old_nested_block_is_converted_journaled_and_undone(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    note = vault / "People" / "Alice Chen.md"
    text = note.read_text(encoding="utf-8")
    old = text.replace("\n---\n", "\n" + OLD_BLOCK + "---\n", 1)
    note.write_text(old, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    before = snapshot(vault)
    _, report = writeback_namespace(workspace.config, "test", load_ontology(), today="2026-11-22")
    converted = note.read_text(encoding="utf-8")
    assert "People/Alice Chen.md" in report.written
    assert "\nmnemo:" not in converted and "person_id:" not in converted and "salience" not in converted
    assert '\nmnemo-related:\n' in converted and '\nmnemo-mentioned-in:\n' in converted
    assert "\nmnemo-updated: 2026-11-22\n---\n" in converted
    assert converted.replace(converted[converted.index("mnemo-related:"):converted.index("---\n", 4)], "") == (
        old.replace(OLD_BLOCK, ""))
    undo_run(journal_for(workspace.config, "test"), report.run, source_roots(workspace.config, "test"))
    assert snapshot(vault) == before and note.read_text(encoding="utf-8") == old


def _graph(root: Path, title_format: str) -> Path:
    graph = root / "graph"
    for folder in ("pages", "journals", "logseq"):
        (graph / folder).mkdir(parents=True)
    (graph / "logseq" / "config.edn").write_text(
        '{:preferred-format "Markdown"\n ;; :journal/page-title-format "yyyy-MM-dd"\n'
        f' :journal/page-title-format "{title_format}"}}\n', encoding="utf-8")
    (graph / "journals" / "2022_03_08.md").write_text("- met about [[Alpha]] and [[Beta]]\n", encoding="utf-8")
    (graph / "pages" / "Alpha.md").write_text("- the project\n", encoding="utf-8")
    (graph / "pages" / "Beta.md").write_text("- works on [[Alpha]]\n", encoding="utf-8")
    (graph / "pages" / "Gamma.md").write_text("---\ntitle: Gamma\n---\n- part of [[Alpha]]\n", encoding="utf-8")
    return graph


def _written_links(graph: Path) -> list[str]:
    lines = [line for p in graph.rglob("*.md") for line in p.read_text(encoding="utf-8").splitlines()
             if line.startswith(("mnemo-", "  - "))]
    return [link for line in lines for link in re.findall(r"\[\[([^\[\]]+)\]\]", line)]


@pytest.mark.parametrize("title_format, day_name", [
    ("E, yyyy/MM/dd", "Tue, 2022/03/08"), ("MMM do, yyyy", "Mar 8th, 2022"),
])
def test_logseq_day_links_use_the_graphs_title_format_and_resolve(tmp_path: Path, title_format: str, day_name: str) -> None:
    graph = _graph(tmp_path, title_format)
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    workspace.ingest()
    writeback_namespace(workspace.config, "test", load_ontology(), today="2022-03-08")
    alpha = (graph / "pages" / "Alpha.md").read_text(encoding="utf-8")
    # the journal day that names Alpha is where it was mentioned, not a related page
    assert alpha == (
        f"mnemo-mentioned-in:: [[{day_name}]]\nmnemo-mentioned-count:: 1\nmnemo-mentioned-last:: [[{day_name}]]\n"
        f"mnemo-updated:: [[{day_name}]]\n- the project\n"
    )
    gamma = (graph / "pages" / "Gamma.md").read_text(encoding="utf-8")
    assert f'\nmnemo-updated: "[[{day_name}]]"\n---\n- part of [[Alpha]]\n' in gamma
    assert set(_written_links(graph)) <= {"Alpha", "Beta", "Gamma", day_name}
    assert day_name in _written_links(graph)


def test_a_day_without_a_journal_page_is_plain_quoted_text(tmp_path: Path) -> None:
    graph = _graph(tmp_path, "E, yyyy/MM/dd")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    workspace.ingest()
    writeback_namespace(workspace.config, "test", load_ontology(), today="2022-03-09")
    beta = (graph / "pages" / "Beta.md").read_text(encoding="utf-8")
    assert 'mnemo-updated:: "2022-03-09"\n- works on [[Alpha]]\n' in beta
    assert '\nmnemo-updated: "2022-03-09"\n---\n' in (graph / "pages" / "Gamma.md").read_text(encoding="utf-8")
    assert "2022-03-09" not in _written_links(graph)


OLD_LOGSEQ = "mnemo-about:: project_id:beta\nmnemo-related:: [[Alpha]]\nmnemo-consolidated:: 2026-01-01\n\n"


def _old_logseq_write(tmp_path: Path) -> tuple[Path, Workspace, str]:
    """A graph whose Beta page carries lines (and the blank line) an earlier version wrote, journaled."""
    graph = _graph(tmp_path, "MMM do, yyyy")
    page = graph / "pages" / "Beta.md"
    original = page.read_text(encoding="utf-8")
    page.write_text(OLD_LOGSEQ + original, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "logseq", "path": str(graph)}]})
    label = workspace.config.namespace("test").sources[0].label
    journal_for(workspace.config, "test").append_many([JournalEntry(
        "wb-old", "write", "2026-01-01T00:00:00+00:00", label, "pages/Beta.md", str(page), 0, "", OLD_LOGSEQ,
        digest(original.encode()), digest((OLD_LOGSEQ + original).encode()),
    )])
    workspace.ingest()
    return page, workspace, original


def test_the_blank_line_an_earlier_version_added_to_a_logseq_page_goes_with_its_lines(tmp_path: Path) -> None:
    page, workspace, original = _old_logseq_write(tmp_path)
    _, report = writeback_namespace(workspace.config, "test", load_ontology(), today="2026-11-22")
    assert "pages/Beta.md" in report.written
    converted = page.read_text(encoding="utf-8")
    first, rest = converted.split("\n", 1)
    # Beta links Alpha already: the related page is Gamma, which shares Alpha; no blank line follows
    assert first == "mnemo-related:: [[Gamma]]"
    assert rest == (
        'mnemo-mentioned-in:: [[Mar 8th, 2022]]\nmnemo-mentioned-count:: 1\n'
        'mnemo-mentioned-last:: [[Mar 8th, 2022]]\nmnemo-updated:: "2026-11-22"\n' + original
    )
    undo_run(journal_for(workspace.config, "test"), report.run, source_roots(workspace.config, "test"))
    assert page.read_text(encoding="utf-8") == OLD_LOGSEQ + original


def test_forget_takes_the_old_blank_line_out_with_the_lines(tmp_path: Path) -> None:
    page, workspace, original = _old_logseq_write(tmp_path)
    doc = next(d for d in workspace.files().read_documents() if d.path == "pages/Beta.md")
    report = remove_blocks(workspace.config, "test", [PageRef(doc.source, doc.path)])
    assert report is not None and report.written == ["pages/Beta.md"]
    assert page.read_text(encoding="utf-8") == original
    assert block_removal(OLD_LOGSEQ + original, "logseq", "mnemo").apply(OLD_LOGSEQ + original) == "\n" + original
