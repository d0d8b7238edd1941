"""The ranking fitted on notes questions leave one vault out (benchmarks/fitting/notes_cv.py,
benchmarks/notes_cv.py): candidates labelled by their note, same- and cross-language questions
scored apart, each vault scored with what was fitted on the others; two runs fused per note."""

import json
from pathlib import Path

import pytest

from benchmarks.fitting.notes_cv import NotesSet, ask_vault, figures, held_out
from benchmarks.notes_cv import fuse
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology

NOTES = {
    "one": {"Paella.md": "La paella lleva arroz, pollo, conejo y azafrán; se cuece sin remover.",
            "Lisboa.md": "En Lisboa subimos en el tranvía 28 y comimos pasteles de nata en Belém.",
            "Garden.md": "The tomatoes need sun and water every morning; basil grows beside them."},
    "two": {"Teorema.md": "El teorema maestro resuelve recurrencias de divide y vencerás.",
            "Pila.md": "La búsqueda en profundidad guarda en una pila los nodos por visitar.",
            "Books.md": "Books to read this winter: a history of printing and a novel about the sea."},
}
QUESTIONS = {
    "one": [("one-1", "¿qué lleva la paella?", "Paella.md", "es"), ("one-2", "tram 28 in Lisbon", "Lisboa.md", "en"),
            ("one-3", "when do the tomatoes get water?", "Garden.md", "en")],
    "two": [("two-1", "teorema maestro recurrencias", "Teorema.md", "es"), ("two-2", "stack of nodes", "Pila.md", "en"),
            ("two-3", "a novel about the sea", "Books.md", "en")],
}
NOTE_LANG = {"Garden.md": "en", "Books.md": "en"}


def _vaults(root: Path) -> tuple[Path, Path, list[NotesSet]]:
    corpora, qa = root / "corpora", root / "qa"
    qa.mkdir()
    for name, notes in NOTES.items():
        (corpora / name).mkdir(parents=True)
        for path, text in notes.items():
            (corpora / name / path).write_text(text + "\n", encoding="utf-8")
        (qa / f"{name}.jsonl").write_text("\n".join(json.dumps({
            "id": qid, "question": text, "gold": [gold], "lang": lang, "note_lang": NOTE_LANG.get(gold, "es")})
            for qid, text, gold, lang in QUESTIONS[name]) + "\n", encoding="utf-8")
    sets = [NotesSet(name, "obsidian", "Spanish", (f"{name}.jsonl",)) for name in NOTES]
    return corpora, qa, sets


@pytest.mark.slow  # fits LightGBM trees twice
def test_each_vault_is_scored_with_what_the_other_fitted_same_and_cross_language_apart(tmp_path: Path) -> None:
    corpora, qa, sets = _vaults(tmp_path)
    asked = [ask_vault(s, corpora, qa, tmp_path / "work" / s.vault, HashingEmbedder(), load_ontology()) for s in sets]
    one = asked[0]
    assert one.cross == [False, True, False]  # Spanish asked of a Spanish note; English of Spanish; English of English
    assert {n for notes in one.notes for n in notes} <= set(NOTES["one"])
    assert one.training.y.sum() >= 1 and len(one.training.y) == len(one.training.question)
    folds = held_out(asked, lambda _message: None)
    assert folds["one"]["fitted_on"] == ["two"] and folds["two"]["fitted_on"] == ["one"]
    scored = figures(one)
    assert {"recall", "bm25", "bm25 Spanish", "candidates, linear fit", "candidates, trees"} <= set(scored)
    assert scored["recall"]["cross"]["questions"] == 1 and scored["recall"]["same"]["questions"] == 2
    assert scored["recall"]["all"]["hit@10"] == 1.0  # three notes: every one is among the first ten


def test_two_runs_are_fused_by_the_ranks_they_gave_each_note(tmp_path: Path) -> None:
    question = {"id": "q", "gold": ["b.md"], "cross": True}
    for name, answers in (("a", ["x.md", "b.md"]), ("b", ["b.md", "y.md"])):
        run = {"vaults": {"v": {"questions": [question], "answers": {"recall": [answers]}}}}
        (tmp_path / f"{name}.json").write_text(json.dumps(run), encoding="utf-8")
    fused = fuse(f"{tmp_path / 'a.json'}:recall", f"{tmp_path / 'b.json'}:recall")
    assert fused["vaults"]["v"]["cross"] == {"hit@1": 1.0, "hit@5": 1.0, "hit@10": 1.0, "MRR": 1.0, "questions": 1}
    assert fused["vaults"]["v"]["same"]["questions"] == 0
