"""Ingest chooses a namespace's embedder from the languages of its notes (and what the embedders
measured) and records it; recall and `mnemo status` use and show it, with the languages seen; a
change of choice re-embeds every row; mnemo.yaml's `embedder:` always wins; `mnemo init` and
`mnemo eval notes` say and use the same choice."""

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


@pytest.mark.slow  # loads MiniLM, ingests through Dagster
def test_spanish_notes_keep_minilm_while_the_multilingual_embedders_measure_worse_and_status_says_why(tmp_path: Path) -> None:
    workspace, _ = _workspace(tmp_path, SPANISH_NOTES, None)
    result = workspace.ingest()
    assert workspace.metadata(result, "chunk_vectors")["embedder"] == "minilm-l6-v2"
    choice = recorded_choice(workspace.files().root)
    assert choice is not None and choice.kind == "minilm" and choice.languages.startswith("es 1.00")
    status = _status(workspace)
    assert status["embedder"]["kind"] == "minilm" and "no multilingual embedder measured better" in status["embedder"]["reason"]  # type: ignore[index]
    shown = " ".join(runner.invoke(app, ["status", "-n", "test", "--config", str(workspace.config_path)]).output.split())
    assert "embedder: minilm" in shown and "languages seen: es 1.00" in shown
    assert steady_client(workspace).embedder.name == "minilm-l6-v2"


@pytest.mark.slow  # loads MiniLM, ingests twice through Dagster
def test_a_change_of_choice_re_embeds_every_row_with_the_new_embedder(tmp_path: Path) -> None:
    workspace, _ = _workspace(tmp_path, ENGLISH_NOTES, "hashing")
    workspace.ingest()
    assert recorded_choice(workspace.files().root).kind == "hashing"  # type: ignore[union-attr]
    assert _embedded_by(workspace, "hashing-384")
    config = yaml.safe_load(workspace.config_path.read_text(encoding="utf-8"))
    del config["embedder"]  # the choice is mnemo's again: English notes, MiniLM
    workspace.config_path.write_text(yaml.safe_dump(config), encoding="utf-8")
    workspace.ingest()
    assert recorded_choice(workspace.files().root).kind == "minilm"  # type: ignore[union-attr]
    assert _embedded_by(workspace, "minilm-l6-v2")  # every row: no mixed vectors


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
    assert "languages: es 1.00; embedder: minilm" in said
    assert _embedder_settings(tmp_path / "new.yaml", SourceConfig(kind="obsidian", path=vault)).kind == "minilm"
