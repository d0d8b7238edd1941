"""The full-text index speaks the notes' language: ingest builds the chunks' index with the
stemmer of the language most of the words are in (Spanish notes: Spanish word stems and stop
words), rebuilds it when that language changes, and `mnemo status` names it."""

import json
from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.ingest.embedder_choice import recorded_choice
from mnemo.ingest.languages import language_profile
from mnemo.recall.search import TimeWindow, lexical
from tests.support import make_workspace

SPANISH = {
    "Búsqueda en anchura.md": "La búsqueda en anchura va visitando todos los vértices adyacentes a un vértice "
                              "antes de pasar a los vecinos de estos, y para ello se usa una cola.",
    "Paella.md": "Para la paella se sofríe el pollo y el conejo, se añade el arroz y el caldo con azafrán, y se "
                 "deja cocer sin remover durante unos veinte minutos.",
    "Lisboa.md": "En el viaje a Lisboa visitamos el barrio de Alfama, subimos en el tranvía y comimos pasteles "
                 "de nata en Belém, que es lo que más nos gustó de la ciudad.",
}
ENGLISH = {
    "Gardening.md": "The tomatoes need a sunny spot and water every morning; the basil grows best next to them.",
    "Reading.md": "Books to read this winter: a history of the printing press and a novel about the sea.",
}


def _vault(root: Path, notes: dict[str, str]) -> Path:
    vault = root / "vault"
    vault.mkdir(exist_ok=True)
    for old in vault.glob("*.md"):
        old.unlink()
    for name, text in notes.items():
        (vault / name).write_text(text + "\n", encoding="utf-8")
    return vault


def _paths(workspace, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    return [row["path"] for row in lexical(workspace.vectors().must_open("chunks"), query, 5, TimeWindow())]


def test_a_profile_names_the_stemmer_of_the_language_most_words_are_in() -> None:
    spanish = "El algoritmo de búsqueda en profundidad explora cada rama hasta el final antes de volver atrás."
    english = "The depth-first search explores each branch to the end before it backs up to the last fork."
    assert language_profile([spanish] * 3 + [english]).stemmer() == "Spanish"
    assert language_profile([english] * 3 + [spanish]).stemmer() == "English"
    assert language_profile(["深度优先搜索会沿着一条路径一直走到底，然后再回溯。"] * 3).stemmer() == "English"  # no stemmer
    assert language_profile([]).stemmer() == "English"


def test_spanish_notes_are_searched_by_spanish_stems_and_a_change_of_language_rebuilds_the_index(
        tmp_path: Path) -> None:
    vault = _vault(tmp_path, SPANISH)
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    assert recorded_choice(workspace.files().root).stemmer == "Spanish"  # type: ignore[union-attr]
    assert set(_paths(workspace, "visitar")) == {"Búsqueda en anchura.md", "Lisboa.md"}  # visitando, visitamos
    assert _paths(workspace, "de la que el") == []  # Spanish stop words match nothing
    shown = " ".join(CliRunner().invoke(app, ["status", "-n", "test", "--config", str(workspace.config_path)])
                     .output.split())
    assert "full-text stemmer: Spanish" in shown
    _vault(tmp_path, ENGLISH)
    workspace.ingest()
    assert recorded_choice(workspace.files().root).stemmer == "English"  # type: ignore[union-attr]
    assert _paths(workspace, "growing tomato") == ["Gardening.md"]  # grows, tomatoes: English stems
    kept = json.loads((workspace.files().root / "embedder.json").read_text(encoding="utf-8"))
    assert kept["stemmer"] == "English"
