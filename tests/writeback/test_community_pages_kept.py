"""Community pages a person keeps: a member far in meaning from the rest is not listed, a summary
that only lists names gives way to the members' first sentences, and in a vault not written in
English the page names carry no English words."""

from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.writeback.community_meaning import MEMBER_FLOOR, only_names, trim_members
from mnemo.writeback.note_vectors import NoteVectors
from mnemo.writeback.pages import PageFacts, community_names, community_pages
from mnemo.writeback.run import writeback_namespace
from ontology import load_ontology
from tests.support import make_workspace


def _meanings() -> NoteVectors:
    return NoteVectors.of({
        "n_post1": np.array([1.0, 0.1, 0.0]), "n_post2": np.array([1.0, 0.0, 0.1]),
        "n_post3": np.array([0.9, 0.2, 0.0]), "n_tart": np.array([0.0, 0.0, 1.0]),
    })


def test_a_member_far_in_meaning_is_not_listed() -> None:
    note_of = {"e_post1": "n_post1", "e_post2": "n_post2", "e_post3": "n_post3", "e_tart": "n_tart", "e_x": None}
    trimmed = trim_members(["e_post1", "e_post2", "e_post3", "e_tart", "e_x"], note_of, _meanings())
    assert trimmed.far == ("e_tart",)
    assert trimmed.kept == ("e_post1", "e_post2", "e_post3", "e_x")  # a member without a note stays
    assert trimmed.cohesion is not None and 0 < trimmed.cohesion < 1
    pair = trim_members(["e_post1", "e_tart"], note_of, _meanings())
    assert pair.far == () and MEMBER_FLOOR > 0  # two members: neither is "the rest"


def _facts() -> PageFacts:
    facts = PageFacts(communities=[{"id": "c1", "level": 0, "title": "Buy wisely", "summary": "Buy wisely, Tart."},
                                   {"id": "c2", "level": 0, "title": "Tart", "summary": "Tart and Buy wisely."}])
    facts.members["c1"] = ["e_post1", "e_post2", "e_post3", "e_tart"]
    facts.members["c2"] = ["e_tart", "e_post1"]
    facts.entities = {"e_post1": ("Buy wisely", "n_post1"), "e_post2": ("In good hands", "n_post2"),
                      "e_post3": ("68 Bits", "n_post3"), "e_tart": ("Tart", "n_tart")}
    facts.sentences = {"n_post1": "Buy fewer, better things.", "n_tart": "Melt the butter until brown."}
    return facts


def test_pages_list_members_alike_with_their_first_sentence_and_no_summary_of_names() -> None:
    facts = _facts()
    facts.keep_alike(_meanings())
    assert facts.far == {"c1": {"n_tart"}, "c2": set()}
    names = community_names(facts, "Mnemo")
    pages = community_pages(facts, names, lambda note: note.removeprefix("n_"), lambda e: facts.entities[e])
    buy = next(p for p in pages if p.title == "Buy wisely")
    assert dict(buy.sections)["Members"] == ("[[post1]]: Buy fewer, better things.", "[[post2]]", "[[post3]]")
    assert buy.summary == "Buy wisely, Tart."  # Tart is no member of it any more: the summary says more than its list
    tart = next(p for p in pages if p.title == "Tart")
    assert tart.summary == ""  # only the names of its members
    assert only_names("Kyoto, Fushimi Inari, Japan and 2023 Japan Trip.", {"Kyoto", "Fushimi Inari", "Japan",
                                                                           "2023 Japan Trip"})
    assert not only_names("Kyoto is where the trip began.", {"Kyoto"})


def test_page_names_carry_english_words_only_in_an_english_vault() -> None:
    facts = _facts()
    assert community_names(facts, "Mnemo")["c1"] == "Mnemo/Communities/Buy wisely (community)"
    facts.english = False
    facts.communities[1]["level"] = 1
    assert community_names(facts, "Mnemo") == {"c1": "Mnemo/Communities/Buy wisely (mnemo)",
                                               "c2": "Mnemo/Communities/Tart (mnemo 2)"}


NOTAS = {
    "Cursos/Cálculo.md": "Las clases de [[Cálculo]] con la profesora [[Ana Gómez]]. Los libros están en [[Libros]].",
    "Cursos/Álgebra lineal.md": "Matrices y vectores con la [[Ana Gómez]]. Ver también [[Libros]] y [[Cálculo]].",
    "Cursos/Física.md": "Mecánica y ondas. Los ejercicios de [[Cálculo]] ayudan mucho. Listas en [[Libros]].",
    "Personas/Ana Gómez.md": "Profesora del departamento de matemáticas de la universidad.",
    "Libros.md": "Los libros que quiero leer este año: Stewart, Grossman y Resnick.",
    "Diario/2025-03-10.md": "Hoy estudié [[Álgebra lineal]] y hablé con la [[Ana Gómez]] sobre el examen.",
    "Diario/2025-03-11.md": "Repasé [[Física]] en la biblioteca con los apuntes de [[Cálculo]].",
}


def test_a_spanish_vault_gets_community_pages_named_without_english_words(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for rel, text in NOTAS.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text + "\n", encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), datetime(2025, 6, 1, 3, tzinfo=UTC))
    writeback_namespace(workspace.config, "test", load_ontology(), today="2025-06-01")
    pages = sorted(p.name for p in (vault / "Mnemo" / "Communities").glob("*.md"))
    assert pages
    assert all(name.endswith(" (mnemo).md") or " (mnemo " in name for name in pages), pages
    linked = " ".join((vault / rel).read_text(encoding="utf-8") for rel in NOTAS)
    assert "(community)" not in linked and "mnemo-community" in linked


def test_an_index_page_is_listed_only_when_the_community_is_named_after_it() -> None:
    facts = _facts()
    facts.members["c1"].append("e_recipes")
    facts.entities["e_recipes"] = ("Recipes", "n_recipes")
    facts.entities["e_tart"] = ("Tart", "n_tart")
    facts.members["c2"] = ["e_tart", "e_post1", "e_recipes"]
    facts.communities[1].update(title="Recipes", named_after="e_recipes")
    facts.index_pages = {"n_recipes"}
    facts.keep_alike(_meanings())
    assert "e_recipes" not in facts.members["c1"] and "n_recipes" in facts.far["c1"]
    assert "e_recipes" in facts.members["c2"]


def test_an_index_page_a_community_is_named_after_stays_though_its_title_is_the_notes_own_name() -> None:
    facts = _facts()
    facts.entities["e_recipes"] = ("1716491727-recetas", "n_recipes")  # a note named by an identifier
    facts.entities["e_tart"] = ("Tart", "n_tart")
    facts.members["c2"] = ["e_tart", "e_post1", "e_recipes"]
    facts.communities[1].update(title="Recetas", named_after="e_recipes")  # the note's alias
    facts.index_pages = {"n_recipes"}
    facts.keep_alike(_meanings())
    assert "e_recipes" in facts.members["c2"]


def test_a_community_left_without_members_is_not_linked_from_its_wider_one() -> None:
    facts = _facts()
    facts.communities.append({"id": "w", "level": 1, "title": "Everything", "summary": ""})
    facts.members["w"] = ["e_post1", "e_post2"]
    facts.members["c2"] = ["e_tart", "e_recipes"]
    facts.entities["e_recipes"] = ("Recipes", "n_recipes")
    facts.index_pages = {"n_recipes"}
    facts.parents = {"c1": "w", "c2": "w"}
    facts.keep_alike(_meanings())
    names = community_names(facts, "Mnemo")
    assert "c2" not in names
    pages = community_pages(facts, names, lambda note: note.removeprefix("n_"), lambda e: facts.entities[e])
    wider = next(p for p in pages if p.title == "Everything")
    assert dict(wider.sections)["Smaller communities"] == ("[[Mnemo/Communities/Buy wisely (community)]]",)
