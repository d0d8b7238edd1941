"""Note-level diversity and the assembled context: at most `per_note` passages of a note before
the other notes' passages, and a period's summary standing in for passages that do not fit."""

from pathlib import Path

from mnemo.client import MemoryClient
from mnemo.recall.context import context_lines, summary_line, word_tokens
from mnemo.recall.rank import diversified
from mnemo.recall.results import RecalledItem
from mnemo.recall.settings import RecallSettings
from tests.support import make_workspace

JUNE = {"id": "summary_month_2026-06", "level": "month", "period": "2026-06", "text": "Repainted the boat with Marta."}


def item(item_id: str, text: str, summarized_by: dict | None = None, kind: str = "chunk") -> RecalledItem:
    return RecalledItem(item_id, kind, text, 1.0, metadata={"summarized_by": summarized_by} if summarized_by else {})


def test_a_note_gives_at_most_per_note_passages_before_the_other_notes() -> None:
    items = [item(i, i) for i in ("a1", "a2", "a3", "b1", "a4", "c1", "t1", "t2", "t3")]
    notes = {"a1": "A", "a2": "A", "a3": "A", "a4": "A", "b1": "B", "c1": "C"}  # t*: chat turns, in no note
    assert [i.id for i in diversified(items, 2, notes)] == ["a1", "a2", "b1", "c1", "t1", "t2", "t3", "a3", "a4"]
    assert [i.id for i in diversified(items, 0, notes)] == [i.id for i in items]


def test_a_summary_stands_in_for_lower_ranked_passages_that_do_not_fit() -> None:
    long = " ".join(["word"] * 60)
    items = [item("p1", "first " + long, JUNE), item("p2", "second " + long, JUNE), item("p3", "third " + long, JUNE),
             item("other", "Short unrelated passage.")]
    budget = word_tokens("- first " + long) + word_tokens(summary_line(JUNE)) + word_tokens("- Short unrelated passage.")
    lines = context_lines(items, budget)
    assert lines[0].startswith("- first") and lines[1] == summary_line(JUNE) and lines[2] == "- Short unrelated passage."
    assert len(lines) == 3  # the summary stands in once, for p2 and p3
    roomy = context_lines(items, 10_000)
    assert [line.split()[1] for line in roomy] == ["first", "second", "third", "Short"]  # nothing replaced when all fits


def test_recall_returns_more_notes_than_passages_of_one_note(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    sections = "\n\n".join(f"## Part {n}\n\nThe harbour crane lifts boats part {n} of the long harbour manual." for n in range(6))
    (vault / "Harbour manual.md").write_text(sections + "\n", encoding="utf-8")
    for name in ("Crane log", "Boat lift"):
        (vault / f"{name}.md").write_text(f"The harbour crane lifted boats today, noted in {name}.\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    client = MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=0.0))
    items = client.recall("harbour crane lifts boats manual", k=4).items
    assert len(items) == 4 and {i.path for i in items} == {"Harbour manual.md", "Crane log.md", "Boat lift.md"}
    assert sum(i.path == "Harbour manual.md" for i in items) == 2
