"""Leave-one-vault-out fitting of the ranking on the notes questions, for one embedder.

The protocol is LoCoMo's (`locomo_cv`) with a vault in place of a conversation: each vault of
`tests/data/notes_qa` is ingested once, and for every question the candidates eager recall ranks
(its BM25 and vector hits) are collected with the learned ranking's features; a candidate is
positive when its note is one of the question's gold notes. Then, for each vault in turn, the
linear weights (the logistic fit, then coordinate ascent) and the trees are fitted on the other
vaults' questions and scored on the held-out vault's, which the fit never saw.

Scored per vault, all questions and split into same-language and cross-language ones (a
question's `lang` against its note's `note_lang`; English when a file does not say):
- `bm25`, `bm25 <language>`: BM25 over whole notes with LanceDB's English stemmer (what
  `mnemo eval notes` reports) and with the vault's own language's;
- `recall`: eager recall as shipped;
- `candidates, …`: the candidates alone ordered by the shipped weights, the fold's fitted weights
  and the fold's trees (no pages, links, periods or per-note cap): the fits are compared with
  the shipped weights on the same candidates.
Every system is scored on distinct notes, as `mnemo eval notes` scores them. A vault's asked
questions are kept as JSON (`save`, `load`), so each vault and embedder can be asked by its own
process and the folds fitted afterwards.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.fitting.locomo_cv import FITTED, Candidates, fit_learned, fit_ranking, folds, ranked_candidates
from mnemo.eval.notes import (
    DEPTH,
    NoteIndex,
    NoteQuestion,
    Vault,
    VaultKind,
    distinct_notes,
    ingest_vault,
    load_questions,
)
from mnemo.recall.learned import FEATURES, load_trees
from mnemo.recall.search import HeldChunks
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import Embedder
from ontology import Ontology


@dataclass(frozen=True)
class NotesSet:
    """A vault of the shared corpora, its kind, its language's stemmer, and its question files."""

    vault: str
    kind: VaultKind
    language: str
    files: tuple[str, ...]


SETS = (
    NotesSet("obsidian-antoniolandin-es", "obsidian", "Spanish", ("multilingual.jsonl",)),
    NotesSet("obsidian-kepano", "obsidian", "English", ("obsidian-kepano.jsonl", "multilingual-obsidian-kepano.jsonl")),
    NotesSet("obsidian-ideaverse", "obsidian", "English",
             ("obsidian-ideaverse.jsonl", "multilingual-obsidian-ideaverse.jsonl")),
    NotesSet("logseq-docs", "logseq", "English", ("logseq-docs.jsonl", "multilingual-logseq-docs.jsonl")),
)


@dataclass
class Asked:
    """One vault's questions asked once: whether each is cross-language, its candidates (the
    training rows) with each candidate's note, and the notes each system returned."""

    name: str
    questions: list[NoteQuestion]
    cross: list[bool]
    training: Candidates
    notes: list[list[str]]  # per question, its candidates' notes in candidate order
    answers: dict[str, list[list[str]]]  # system -> per question, its distinct notes


def cross_language(files: list[Path]) -> dict[str, bool]:
    """Question id -> whether it is asked in another language than its note's."""
    rows = [json.loads(line) for path in files for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {str(r["id"]): r.get("lang", "en") != r.get("note_lang", "en") for r in rows}


def ask_vault(notes_set: NotesSet, corpora: Path, qa: Path, root: Path, embedder: Embedder,
              ontology: Ontology) -> Asked:
    """Ingest the vault, collect every question's candidates, ask recall and BM25 as shipped."""
    files = [qa / name for name in notes_set.files if (qa / name).is_file()]
    questions = [q for path in files for q in load_questions(path)]
    vault = ingest_vault(corpora / notes_set.vault, notes_set.kind, root, embedder, ontology, RecallSettings())
    paths = {d.id: d.path for d in vault.pipeline.files.read_documents()}
    table = vault.pipeline.vectors.must_open("chunks")
    held = HeldChunks(table)
    rows: list[np.ndarray] = []
    labels: list[int] = []
    asked: list[int] = []
    notes: list[list[str]] = []
    for index, question in enumerate(questions):
        found, matrix = ranked_candidates(table, embedder, held, question.text, vault.engine.settings)
        notes.append([paths.get(r.get("doc_id", ""), "") for r in found])
        labels += [int(n in question.gold) for n in notes[-1]]
        rows.append(matrix)
        asked += [index] * len(found)
    evidence = np.bincount(np.asarray(asked, dtype=np.int64), weights=np.asarray(labels), minlength=len(questions))
    training = Candidates(np.concatenate(rows), np.asarray(labels, dtype=np.int8), np.asarray(asked, dtype=np.int64),
                          np.maximum(evidence, 1), notes_set.vault)
    cross = cross_language(files)
    answers = {"recall": recall_answers(vault, questions)}
    for language in dict.fromkeys(("English", notes_set.language)):
        note_index = NoteIndex(vault.pipeline.files, root / f"bm25-{language}", language)
        label = "bm25" if language == "English" else f"bm25 {language}"
        answers[label] = [note_index.search(q.text, DEPTH) for q in questions]
    return Asked(notes_set.vault, questions, [cross[q.id] for q in questions], training, notes, answers)


def recall_answers(vault: Vault, questions: list[NoteQuestion]) -> list[list[str]]:
    """Each question's distinct notes from eager recall as shipped."""
    return [distinct_notes(vault.engine.recall(q.text, k=DEPTH, mode="eager")) for q in questions]


def ordered(asked: Asked, scores: np.ndarray) -> list[list[str]]:
    """Each question's distinct notes when its candidates are ordered by `scores`."""
    out = []
    for index in range(len(asked.questions)):
        rows = np.flatnonzero(asked.training.question == index)
        order = rows[np.argsort(-scores[rows], kind="stable")]
        start = int(rows[0]) if len(rows) else 0
        out.append(list(dict.fromkeys(asked.notes[index][r - start] for r in order))[:DEPTH])
    return out


def linear_scores(asked: Asked, weights: dict[str, float]) -> np.ndarray:
    return asked.training.x[:, :len(FITTED)] @ np.asarray([weights[f] for f in FITTED.values()])


def held_out(asked: list[Asked], say: Callable[[str], None]) -> dict[str, Any]:
    """Per held-out vault: the weights and trees fitted on the others, and how they order its candidates."""
    shipped = {f: getattr(RecallSettings().ranking, f) for f in FITTED.values()}
    report: dict[str, Any] = {}
    for fit_on, held in folds(len(asked)):
        parts = [asked[i].training for i in fit_on]
        weights, trees = fit_ranking(parts), fit_learned(parts)
        target = asked[held]
        target.answers["candidates, shipped weights"] = ordered(target, linear_scores(target, shipped))
        target.answers["candidates, linear fit"] = ordered(target, linear_scores(target, weights))
        target.answers["candidates, trees"] = ordered(target, load_trees(trees["ranker"]).predict(target.training.x))
        report[target.name] = {"fitted_on": [asked[i].name for i in fit_on], "weights": weights}
        say(f"fold: held out {target.name}, weights {weights}")
    return report


def save(asked: Asked, path: Path) -> None:
    """The vault's asked questions as JSON (`load` reads them back)."""
    t = asked.training
    path.write_text(json.dumps({
        "name": asked.name, "cross": asked.cross, "notes": asked.notes, "answers": asked.answers,
        "questions": [{"id": q.id, "question": q.text, "gold": list(q.gold), "kind": q.kind} for q in asked.questions],
        "x": t.x.tolist(), "y": t.y.tolist(), "question": t.question.tolist(), "evidence": t.evidence.tolist(),
    }), encoding="utf-8")


def load(path: Path) -> Asked:
    data = json.loads(path.read_text(encoding="utf-8"))
    questions = [NoteQuestion(q["id"], q["question"], tuple(q["gold"]), q["kind"]) for q in data["questions"]]
    x = np.asarray(data["x"], dtype=np.float64).reshape(-1, len(FEATURES))
    training = Candidates(x, np.asarray(data["y"], dtype=np.int8), np.asarray(data["question"], dtype=np.int64),
                          np.asarray(data["evidence"], dtype=np.float64), data["name"])
    return Asked(data["name"], questions, data["cross"], training, data["notes"], data["answers"])


def figures(asked: Asked) -> dict[str, dict[str, dict[str, float]]]:
    """Per system: hit@1/5/10 and MRR over all questions, the same-language and the cross-language ones."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for system, answers in asked.answers.items():
        ranks = [next((n for n, p in enumerate(notes, 1) if p in q.gold), 0) for q, notes in zip(asked.questions, answers)]
        out[system] = {part: note_figures([r for r, cross in zip(ranks, asked.cross) if keep(cross)])
                       for part, keep in (("all", lambda c: True), ("same", lambda c: not c), ("cross", bool))}
    return out


def note_figures(ranks: list[int]) -> dict[str, float]:
    n = len(ranks) or 1
    out = {f"hit@{k}": round(sum(1 for r in ranks if 0 < r <= k) / n, 4) for k in (1, 5, 10)}
    return out | {"MRR": round(sum(1 / r for r in ranks if r) / n, 4), "questions": len(ranks)}
