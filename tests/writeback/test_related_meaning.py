"""Related notes from closeness in meaning (mean passage embeddings), and none on or to hubs: a note
linked with a large share of the vault takes none and is none; an index page (links and embeds with
not a word of its own) takes none."""

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import yaml

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.writeback.note_vectors import MEANING_FLOOR, NoteVectors, meaning_weight
from mnemo.writeback.related import Neighbourhood, hub_notes, index_pages, related_notes
from mnemo.writeback.run import writeback_namespace
from ontology import load_ontology
from tests.support import make_workspace


def _unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_closeness_in_meaning_weighs_shared_evidence_and_is_none_alone() -> None:
    meanings = NoteVectors.of({"a": _unit(1, 0, 0), "b": _unit(1, 0.2, 0), "c": _unit(0, 1, 0), "d": _unit(1, 1, 0),
                               "e": _unit(1, 0.1, 0)})
    near = meanings.cosines("a", ["b", "c", "d", "e", "unknown"])
    assert set(near) == {"b", "c", "d", "e"} and near["e"] > near["b"] > near["d"] > MEANING_FLOOR > near["c"]
    space = Neighbourhood({n: n.upper() for n in "abcde"}, {}, meanings=meanings)
    space.neighbours = {"a": {"x"}, "b": {"x"}, "c": {"x"}, "d": {"x"}}  # e shares nothing with a
    found = related_notes(space, "a", set("abcde"), space.by_neighbour(), 5)
    assert [r.note_id for r in found] == ["b", "d", "c"]  # the same shared neighbour, ordered by meaning
    assert found[0].evidence == round(0.25 * meaning_weight(near["b"]), 6)
    assert found[2].evidence == round(0.25 * meaning_weight(near["c"]), 6)
    assert meaning_weight(MEANING_FLOOR) == 1.0 and meaning_weight(1.0) == 2.0
    assert meaning_weight(0.0, penalty=0.5) == 0.5 and meaning_weight(0.0) == 1.0


def test_a_note_without_passages_has_no_meaning_and_no_vectors_none() -> None:
    assert NoteVectors.of({}).cosines("a", ["b"]) == {}
    assert NoteVectors.of({"a": _unit(1, 0)}).cosines("b", ["a"]) == {}


def test_a_hub_takes_no_related_notes_and_is_no_ones() -> None:
    notes = {f"n{i}" for i in range(20)} | {"hub", "x"}
    linked = {"hub": {f"n{i}" for i in range(13)}} | {f"n{i}": {"hub"} for i in range(13)}
    assert hub_notes(linked, notes) == {"hub"}  # 13 links: above HUB_MIN (12) and 5 % of 22 notes
    space = Neighbourhood({n: n for n in notes}, linked, hubs={"hub"})
    space.neighbours = {"x": {"n1", "n2"}, "hub": {f"n{i}" for i in range(13)}}
    assert related_notes(space, "hub", notes, space.by_neighbour(), 5) == []
    assert "hub" not in [r.note_id for r in related_notes(space, "x", notes, space.by_neighbour(), 5)]


def test_an_index_page_takes_none_but_may_be_offered() -> None:
    texts = {"cat": "![[Recipes.base]]", "list": "- [[A]], [[B]]\n- ![[C.base#Type]]", "short": "see [[A]]",
             "tart": "Melt the butter until brown.",
             "empty": ""}
    assert index_pages(texts) == {"cat", "list"}
    space = Neighbourhood({n: n for n in texts}, {}, index_pages={"cat"})
    space.neighbours = {"cat": {"e"}, "tart": {"e"}}
    assert related_notes(space, "cat", set(texts), space.by_neighbour(), 5) == []
    assert [r.note_id for r in related_notes(space, "tart", set(texts), space.by_neighbour(), 5)] == ["cat"]


def _related(vault: Path, rel: str) -> list[str]:
    text = (vault / rel).read_text(encoding="utf-8")
    head = yaml.safe_load(text.split("---\n")[1]) if text.startswith("---\n") else {}
    return list((head or {}).get("mnemo-related", []))


def test_writeback_writes_no_related_links_on_or_to_a_hub_or_on_a_category_page(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    topics = [f"Topic {i}" for i in range(14)]
    notes = {f"Notes/{t}.md": f"A few words about {t.lower()} and why it matters to me.\n" for t in topics}
    notes |= {
        "Index.md": "Everything I keep:\n" + "".join(f"- [[{t}]]\n" for t in topics),
        "Reading list.md": "Start with [[Topic 1]], then [[Topic 2]] and [[Topic 3]].\n",
        "Categories/Recipes.md": "---\ntags:\n  - categories\n---\n![[Recipes.base]]\n",
        "Tart.md": '---\ncategories:\n  - "[[Recipes]]"\n---\nMelt butter until brown, then bake the nectarines.\n',
        "Soup.md": '---\ncategories:\n  - "[[Recipes]]"\n---\nSimmer the beans with garlic for an hour.\n',
        "Summer menu.md": "The [[Tart]] after the [[Soup]], on the terrace.\n",
    }
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), datetime(2025, 6, 1, 3, tzinfo=UTC))
    writeback_namespace(workspace.config, "test", load_ontology(), today="2025-06-01")
    assert _related(vault, "Index.md") == []
    assert _related(vault, "Categories/Recipes.md") == []
    assert not any("[[Index]]" in _related(vault, rel) for rel in notes)
    assert any(_related(vault, rel) for rel in notes)  # related links are still written elsewhere
