"""Ingest chooses a namespace's embedder from the languages of its notes and records it; recall and
`mnemo status` use and show it; a change of choice re-embeds every row; mnemo.yaml's `embedder:`
always wins; `mnemo init` and `mnemo eval notes` say and use the same choice."""

import json
from pathlib import Path

import dagster as dg
import pytest
import yaml
from typer.testing import CliRunner

from mnemo.cli.evaluate import _embedder_settings
from mnemo.cli.main import app
from mnemo.config import SourceConfig
from mnemo.documents import content_hash
from mnemo.ingest.embedder_choice import recorded_choice
from mnemo.stores.vector_rows import TEXT_COLUMN
from tests.support import Workspace, steady_client

runner = CliRunner()

SPANISH_NOTES = {
    "Teorema maestro.md": "El teorema maestro permite resolver las recurrencias de los algoritmos de divide y "
                          "vencerás sin desplegar el árbol de recursión: se comparan los términos de la recurrencia.",
    "Búsqueda en profundidad.md": "La búsqueda en profundidad explora cada rama hasta el final antes de volver "
                                  "atrás. Se usa una pila para guardar los nodos que quedan por visitar.",
    "Receta de paella.md": "Para la paella se sofríe el pollo y el conejo, se añade el arroz y el caldo con "
                           "azafrán, y se deja cocer sin remover durante unos veinte minutos.",
    "Viaje a Lisboa.md": "En el viaje a Lisboa visitamos el barrio de Alfama, subimos en el tranvía 28 y "
                         "comimos pasteles de nata en Belém, que es lo que más nos gustó de la ciudad.",
}
ENGLISH_NOTES = {
    "Gardening.md": "The tomatoes need a sunny spot and water every morning; the basil grows best next to them.",
    "Reading list.md": "Books to read this winter: a history of the printing press and a novel about the sea.",
}


def _workspace(root: Path, notes: dict[str, str], embedder: str | None) -> tuple[Workspace, Path]:
    vault = root / "vault"
    vault.mkdir(exist_ok=True)
    for name, text in notes.items():
        (vault / name).write_text(text + "\n", encoding="utf-8")
    config: dict[str, object] = {"data_dir": str(root / "data"),
                                 "namespaces": {"test": {"sources": [{"kind": "obsidian", "path": str(vault)}]}}}
    if embedder:
        config["embedder"] = {"kind": embedder}
    path = root / "mnemo.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return Workspace(root, path, dg.DagsterInstance.ephemeral()), vault


def _status(workspace: Workspace) -> dict[str, object]:
    result = runner.invoke(app, ["status", "-n", "test", "--json", "--config", str(workspace.config_path)])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _embedded_by(workspace: Workspace, name: str) -> bool:
    """Whether every chunk row's vector was made by the embedder called `name`."""
    rows = workspace.vectors().table("chunks").search().select(["embed_hash", TEXT_COLUMN]).limit(None).to_list()
    return bool(rows) and all(r["embed_hash"] == content_hash(name, r[TEXT_COLUMN]) for r in rows)


@pytest.mark.slow  # loads e5 and MiniLM, ingests twice through Dagster
def test_spanish_notes_are_embedded_by_e5_and_an_english_question_finds_them(tmp_path: Path) -> None:
    workspace, _ = _workspace(tmp_path, SPANISH_NOTES, None)
    result = workspace.ingest()
    assert workspace.metadata(result, "chunk_vectors")["embedder"] == "e5-small-q4"
    choice = recorded_choice(workspace.files().root)
    assert choice is not None and choice.kind == "e5" and choice.languages.startswith("es 1.00")
    status = _status(workspace)
    assert status["embedder"]["kind"] == "e5" and "other than English" in status["embedder"]["reason"]  # type: ignore[index]
    shown = runner.invoke(app, ["status", "-n", "test", "--config", str(workspace.config_path)])
    assert "embedder: e5" in " ".join(shown.output.split())
    client = steady_client(workspace)
    assert client.embedder.name == "e5-small-q4"
    found = client.recall("what lets me solve divide-and-conquer recurrences?", k=3, mode="eager")
    assert found.items[0].path == "Teorema maestro.md"


@pytest.mark.slow
def test_a_change_of_languages_re_embeds_every_row_with_the_new_choice(tmp_path: Path) -> None:
    workspace, vault = _workspace(tmp_path, ENGLISH_NOTES, None)
    workspace.ingest()
    assert recorded_choice(workspace.files().root).kind == "minilm"  # type: ignore[union-attr]
    assert _embedded_by(workspace, "minilm-l6-v2")
    for name, text in SPANISH_NOTES.items():
        (vault / name).write_text(text + "\n", encoding="utf-8")
    workspace.ingest()
    assert recorded_choice(workspace.files().root).kind == "e5"  # type: ignore[union-attr]
    assert _embedded_by(workspace, "e5-small-q4")  # the English notes' rows too: no mixed vectors


def test_an_embedder_named_in_mnemo_yaml_always_wins(tmp_path: Path) -> None:
    workspace, vault = _workspace(tmp_path, SPANISH_NOTES, "hashing")
    result = workspace.ingest()
    assert workspace.metadata(result, "chunk_vectors")["embedder"] == "hashing-384"
    status = _status(workspace)
    assert status["embedder"]["kind"] == "hashing"  # type: ignore[index]
    assert status["embedder"]["reason"].startswith("set by `embedder:`")  # type: ignore[index]
    assert _embedder_settings(workspace.config_path, SourceConfig(kind="obsidian", path=vault)).kind == "hashing"


def test_init_says_the_languages_and_eval_notes_chooses_as_ingest_does(tmp_path: Path) -> None:
    _, vault = _workspace(tmp_path, SPANISH_NOTES, None)
    result = runner.invoke(app, ["init", "--obsidian", str(vault), "--config", str(tmp_path / "new.yaml")])
    said = " ".join(result.output.split())
    assert result.exit_code == 0, said
    assert "languages: es 1.00; embedder: e5" in said
    assert _embedder_settings(tmp_path / "new.yaml", SourceConfig(kind="obsidian", path=vault)).kind == "e5"
