"""Notes whose file names are identifiers (`1716491727-orbitas-de-cometas.md`) and whose front
matter names them: recall shows that name and sleep mode names communities and themes by it, while
links by file name or by alias resolve as before, ids stay, and a note named by its file name is
unchanged."""

import json
from pathlib import Path

import pytest

from mnemo.documents import entity_id
from mnemo.eval.sleep_run import consolidate_for_eval
from mnemo.note_names import own_name
from mnemo.sleep.themes import themes_paths
from tests.support import Workspace, make_workspace, steady_client

COMET = "1716491727-orbitas-de-cometas"
KEPLER = "1716491728-leyes-de-kepler"
SLUGGED = {  # file stem -> (front matter, body)
    COMET: (f"id: {COMET}\naliases: [Órbitas de cometas]",
            "Los cometas siguen elipses muy excéntricas. Ver [[1716491728-leyes-de-kepler|las leyes]]."),
    KEPLER: ("title: Leyes de Kepler",
             "Tres leyes del movimiento planetario. Cada ley vale para [[Órbitas de cometas]]."),
    "1716491729-perihelio": ("aliases: [Perihelio]",
                             f"El punto más cercano al Sol. Ver [[{COMET}]] y [[{KEPLER}]]."),
    "1716491730-afelio": ("aliases: [Afelio]", f"El punto más lejano. Ver [[{COMET}]] y [[Leyes de Kepler]]."),
    "1716491731-excentricidad": ("aliases: [Excentricidad]", f"Cuánto se aparta de un círculo. Ver [[{COMET}]]."),
}


def _vault(root: Path) -> Path:
    vault = root / "vault"
    vault.mkdir()
    for stem, (front, body) in SLUGGED.items():
        (vault / f"{stem}.md").write_text(f"---\n{front}\n---\n{body}\n", encoding="utf-8")
    (vault / "1716491732-elipse.md").write_text("---\naliases: [Elipse]\nforma: cónica\n---\n", encoding="utf-8")
    (vault / "Telescopio.md").write_text("---\naliases: [Anteojo]\n---\nPara mirar [[Órbitas de cometas]].\n",
                                         encoding="utf-8")
    return vault


@pytest.fixture(scope="module")
def comets(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("named")
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(_vault(root))}]})
    workspace.ingest()
    return workspace


def test_the_file_name_is_a_name_unless_it_is_an_identifier() -> None:
    assert own_name(COMET, {"aliases": ["Órbitas de cometas"]}) == "Órbitas de cometas"
    assert own_name("my-note", {"id": "my-note", "title": "My note", "aliases": ["Other"]}) == "My note"
    assert own_name("202405141230 Idea", {"alias": "[[Una idea]]"}) == "Una idea"
    assert own_name("Telescopio", {"aliases": ["Anteojo"]}) is None
    assert own_name("2024-05-14", {"aliases": ["Martes"]}) is None  # a journal day names itself
    assert own_name(COMET, {}) is None


def test_recall_shows_the_name_the_note_gives_itself(comets: Workspace) -> None:
    """A passage keeps its note's file name in what is embedded (measured: embedding the name instead
    answered the Spanish vault's questions no better) and carries the note's own name, which recall
    shows as its title; a note named by its file is unchanged."""
    chunks = {c.path: c for c in comets.files().read_chunks()}
    assert chunks[f"{COMET}.md"].metadata["name"] == "Órbitas de cometas"
    assert chunks[f"{COMET}.md"].context_text.startswith(f"{COMET}\nLos cometas siguen")
    assert chunks[f"{KEPLER}.md"].metadata["name"] == "Leyes de Kepler"
    assert chunks["1716491732-elipse.md"].metadata["name"] == "Elipse"  # a note of properties only
    assert "name" not in chunks["Telescopio.md"].metadata and chunks["Telescopio.md"].title == "Telescopio"
    items = steady_client(comets).recall("los cometas siguen elipses excéntricas", limit=10).items
    titles = {i.path: i.title for i in items if i.kind == "chunk"}
    assert titles[f"{COMET}.md"] == "Órbitas de cometas"
    assert titles.get("Telescopio.md", "Telescopio") == "Telescopio"


def test_links_and_ids_keep_the_file_name(comets: Workspace) -> None:
    """Links by file name (with a label) and by alias reach the same notes; entity ids and names
    stay those of the file names; the passages show the names the notes give themselves."""
    graph = comets.graph()
    entities = {r["id"]: r for r in graph.query("MATCH (e:Entity) RETURN e.id AS id, e.name AS name")}
    comet, kepler = entity_id("topic", COMET), entity_id("topic", KEPLER)
    assert entities[comet]["name"] == COMET and entities[kepler]["name"] == KEPLER
    links = {(r["a"], r["b"]) for r in graph.query(
        "MATCH (a:Note)-[:LINKS_TO]->(b:Note) RETURN a.path AS a, b.path AS b")}
    assert (f"{COMET}.md", f"{KEPLER}.md") in links  # [[slug|label]]
    assert (f"{KEPLER}.md", f"{COMET}.md") in links  # [[alias]]
    assert ("1716491730-afelio.md", f"{KEPLER}.md") in links  # [[title property]]
    assert ("Telescopio.md", f"{COMET}.md") in links
    chunks = {c.path: c for c in comets.files().read_chunks()}
    assert chunks[f"{COMET}.md"].metadata["name"] == "Órbitas de cometas"


def test_sleep_names_communities_and_themes_as_the_owner_does(comets: Workspace) -> None:
    report = consolidate_for_eval(comets.pipeline())
    assert report.communities is not None
    titles = {row["title"] for row in report.communities.cohesion}
    assert "Órbitas de cometas" in titles and not any(t.startswith("17164917") for t in titles)
    summaries = [r["summary"] for r in comets.graph().query("MATCH (c:Community) RETURN c.summary AS summary")]
    assert any(s.startswith("Órbitas de cometas") for s in summaries)
    themes = json.loads(themes_paths(comets.files().root)[0].read_text(encoding="utf-8"))["themes"]
    assert themes and not any(t["title"].startswith("17164917") for t in themes)
    assert "Órbitas de cometas" in {w for t in themes for w in t["words"]}
