"""Themes and connections after sleep: sleep mode links notes (either way, shared mentions) and
makes themes of communities and hub notes; recall then lets a theme's notes and the notes linked
with the best notes compete for the places after the best notes, and only after sleep."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.eval.notes import distinct_notes
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.consolidate import consolidate
from tests.support import Workspace, make_workspace

NOW = datetime(2026, 11, 21, 3, tzinfo=UTC)
RECORDS = {
    "Bass on Top": "From 1957; [[Paul Chambers]] plays the bass.",
    "Kind of Blue": "Miles Davis, bought second hand in Lisbon.",
    "Blue Train": "John Coltrane on Blue Note, with [[Paul Chambers]].",
    "Moanin": "Art Blakey and the Jazz Messengers.",
    "Saxophone Colossus": "Sonny Rollins at his best.",
}
HUB = "I keep these: " + ", ".join(f"[[{t}]]" for t in RECORDS) + "."
LEDGERS = {f"Ledger {n}": f"Spent forty euros on groceries in month {n}." for n in range(1, 11)}
WANTED = {"Jazz records.md", *(f"{t}.md" for t in RECORDS)}
QUESTION = "my jazz records"


@pytest.fixture(scope="module")
def jazz(tmp_path_factory: pytest.TempPathFactory) -> tuple[Workspace, list[str]]:
    """A hub note linking five records (two share a musician without a note), ten unrelated
    notes, ingested (hashing embedder); QUESTION's notes with both weights on, then consolidated."""
    root = tmp_path_factory.mktemp("linked")
    vault = root / "vault"
    vault.mkdir()
    for title, body in {"Jazz records": HUB, **RECORDS, **LEDGERS}.items():
        (vault / f"{title}.md").write_text(body + "\n", encoding="utf-8")
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    before = _notes(workspace, QUESTION, theme_weight=1.0, neighbour_weight=0.8)
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), NOW, vectors=workspace.vectors())
    return workspace, before


def _notes(workspace: Workspace, query: str, k: int = 6, **weights: float) -> list[str]:
    settings = RecallSettings(random_share=0.0).with_overrides(**weights)
    return distinct_notes(MemoryClient("test", workspace.config_path, settings=settings).recall(query, k=k))


def test_sleep_links_notes_either_way_and_by_shared_mentions_and_makes_hub_themes(
        jazz: tuple[Workspace, list[str]]) -> None:
    workspace, _ = jazz
    paths = {c.doc_id: c.path for c in workspace.files().read_chunks()}
    data = json.loads((workspace.files().root / "sleep" / "state" / "themes.json").read_text(encoding="utf-8"))
    links = {paths[a]: {paths[b]: w for b, w in others.items()} for a, others in data["links"].items()}
    assert links["Jazz records.md"] == {f"{t}.md": 1.0 for t in RECORDS}  # the hub's links, counted from it
    assert links["Kind of Blue.md"] == {"Jazz records.md": 1.0}  # and from the note linked to
    assert links["Bass on Top.md"]["Blue Train.md"] == 0.5  # both name Paul Chambers, who has no note
    hubs = [t for t in data["themes"] if t["kind"] == "hub"]
    assert [h["title"] for h in hubs] == ["Jazz records"]
    assert {paths[n] for n in hubs[0]["notes"]} == WANTED
    themed = {paths[n] for t in data["themes"] for n in t["notes"] if n in paths}
    assert themed == WANTED  # no ledger note is in a theme


def test_a_question_about_a_theme_gets_the_hub_and_its_linked_notes_after_sleep_only(
        jazz: tuple[Workspace, list[str]]) -> None:
    workspace, before = jazz
    assert set(before) != WANTED  # before sleep: a ledger note instead of a record no word of the question names
    assert set(_notes(workspace, QUESTION, theme_weight=1.0)) == WANTED  # the hub's theme alone
    assert set(_notes(workspace, QUESTION, neighbour_weight=0.8)) == WANTED  # the hub's links alone
    assert set(_notes(workspace, QUESTION, theme_weight=0.0, neighbour_weight=0.0)) == set(before)  # both off: as before


def test_a_direct_question_keeps_its_best_notes_in_place(jazz: tuple[Workspace, list[str]]) -> None:
    workspace, _ = jazz
    question = "Miles Davis bought second hand in Lisbon"
    plain = _notes(workspace, question, k=10, theme_weight=0.0, neighbour_weight=0.0)
    linked = _notes(workspace, question, k=10, theme_weight=1.0, neighbour_weight=0.8)
    assert plain[0] == linked[0] == "Kind of Blue.md"
    assert linked[:3] == plain[:3]


def test_without_sleep_files_recall_is_unchanged(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for title, body in {"Jazz records": HUB, **RECORDS}.items():
        (vault / f"{title}.md").write_text(body + "\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    assert _notes(workspace, QUESTION) == _notes(workspace, QUESTION, theme_weight=0.0, neighbour_weight=0.0)


def test_a_community_theme_brings_its_summary_as_context_after_the_notes(
        jazz: tuple[Workspace, list[str]]) -> None:
    workspace, _ = jazz
    question = "Paul Chambers on bass"  # the community of the two records he plays on
    result = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0)).recall(question, k=6)
    chunks, context = result.items[:6], result.items[6:]
    assert all(i.kind == "chunk" for i in chunks)
    themed = {i.path for i in chunks if any(r.startswith("theme ") for r in i.reasons)}
    assert themed >= {"Bass on Top.md", "Blue Train.md"}
    assert [(i.kind, i.title) for i in context] == [("community", "Paul Chambers")]
    assert context[0].text and context[0].metadata["sources"]
    unthemed = MemoryClient("test", workspace.config_path,
                            settings=RecallSettings(random_share=0.0).with_overrides(theme_weight=0.0))
    assert all(i.kind == "chunk" for i in unthemed.recall(question, k=6).items)
