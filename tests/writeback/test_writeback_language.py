"""Write-back on a Portuguese vault: what mnemo writes into a note is links and the owner's own
words, never English template text, and no two lists that must be read side by side."""

import re
from datetime import UTC, datetime
from pathlib import Path

import yaml

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import consolidate
from mnemo.writeback.run import writeback_namespace
from ontology import load_ontology
from tests.support import make_workspace

NOTES = {
    "Cursos/Cálculo I.md": "Aulas de [[Cálculo I]] com a professora [[Ana Souza]]. Bibliografia em [[Livros]].\n"
                           "#curso #matemática",
    "Cursos/Álgebra Linear.md": "Matrizes e vetores com a [[Ana Souza]]. Ver também [[Livros]].\n#curso #matemática",
    "Cursos/Física Básica.md": "Mecânica e ondas. Exercícios de Cálculo I ajudam. Listas em [[Livros]].\n#curso",
    "Pessoas/Ana Souza.md": "Professora do departamento de matemática.\n",
    "Livros.md": "Livros que quero ler: Stewart, Boldrini, Halliday.\n",
    "Livros/Cálculo volume 1.md": '---\nauthor: "[[James Stewart]]"\n---\nO livro-texto de [[Cálculo I]], com muitos exercícios.\n',
    "Pessoas/James Stewart.md": "Autor de livros de cálculo muito usados nas universidades brasileiras.\n",
    "Diário/2025-03-10.md": "Hoje estudei [[Álgebra Linear]] e falei com a [[Ana Souza]] sobre a prova.\n",
    "Diário/2025-03-11.md": "Revisei [[Física Básica]] na biblioteca.\n",
}
ENGLISH_TEMPLATE = {"shares", "mentions", "this", "note", "and", "more", "works", "with", "the", "of", "related",
                    "it", "chat", "knows", "part", "by", "created", "author"}


def _mnemo_values(text: str) -> dict[str, object]:
    head = text.split("---\n")[1] if text.startswith("---\n") else ""
    return {k: v for k, v in (yaml.safe_load(head) or {}).items() if k.startswith("mnemo-")}


def _words(value: object) -> set[str]:
    items = value if isinstance(value, list) else [value]
    text = " ".join(re.sub(r"\[\[[^\]]*\]\]", " ", str(item)) for item in items)  # a link names a note
    return {w.lower() for w in re.findall(r"[^\W\d_]+", text)}


def test_a_portuguese_vault_gets_no_english_template_words(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), datetime(2025, 6, 1, 3, tzinfo=UTC))
    _, report = writeback_namespace(workspace.config, "test", load_ontology(), today="2025-06-01")
    assert report.written and not report.skipped
    written = {rel: _mnemo_values((vault / rel).read_text(encoding="utf-8")) for rel in NOTES}
    assert any("mnemo-related" in values for values in written.values())
    for rel, values in written.items():
        assert "mnemo-related-why" not in values, rel
        for name, value in values.items():
            assert not _words(value) & ENGLISH_TEMPLATE, (rel, name, value)
