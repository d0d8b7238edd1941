"""Note-level recall on a real vault: does the note that answers a question come back?

The vault is ingested through the real pipeline into a temporary namespace. Each question of a
question file (JSON lines: `question`, `gold` note paths relative to the vault, `kind`) is asked
through eager recall; the returned items are reduced to the distinct notes they come from, in
order (a summary item counts for no note), and scored by hit@k (a gold note among the first k
distinct notes) and MRR. A BM25 ranking over whole notes (title and body, the text recall
indexes) is scored in the same run as the baseline. Gold coverage@10 is the share of a question's
gold notes among the first 10 distinct notes (questions that need several notes are scored on all
of them), averaged over the questions. With `after_sleep`, sleep mode then
consolidates the namespace and every question is asked again (`mnemo after sleep`); the
questions asked before sleep are taken out of the access log first, so sleep learns nothing from
the evaluation itself.
"""

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from mnemo.config import ChunkingConfig, MnemoConfig, NamespaceConfig, SourceConfig
from mnemo.errors import MnemoError
from mnemo.eval.sleep_run import consolidate_for_eval, sleep_steps
from mnemo.pipelines.ingest import IngestPipeline, IngestRun, describe_steps
from mnemo.recall.engine import RecallEngine
from mnemo.recall.results import RecallResult
from mnemo.recall.search import fts_query
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.store import SleepFiles
from mnemo.stores.embedders import Embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.text_index import TextIndex
from ontology import Ontology

VaultKind = Literal["obsidian", "logseq"]
KS = (1, 5, 10)
DEPTH = 10  # items asked of recall, notes taken from BM25
COVERAGE_DEPTH = 10


@dataclass(frozen=True)
class NoteQuestion:
    id: str
    text: str
    gold: tuple[str, ...]
    kind: str


@dataclass
class NoteScores:
    """Per system, per question: (kind, rank of the first gold note or 0, distinct notes returned,
    share of the gold notes among the first COVERAGE_DEPTH notes)."""

    values: dict[str, list[tuple[str, int, int, float]]] = field(default_factory=dict)
    answers: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # system -> question id -> notes

    def add(self, system: str, question: NoteQuestion, notes: list[str]) -> None:
        rank = next((n for n, path in enumerate(notes, 1) if path in question.gold), 0)
        covered = len(set(notes[:COVERAGE_DEPTH]) & set(question.gold)) / len(set(question.gold))
        self.values.setdefault(system, []).append((question.kind, rank, len(notes), covered))
        self.answers.setdefault(system, {})[question.id] = notes[:COVERAGE_DEPTH]


def load_questions(path: Path) -> list[NoteQuestion]:
    """The questions of a JSON-lines file; a clear error naming the file and line when one is malformed."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise MnemoError(f"{path}: cannot read the question file ({exc})") from None
    questions = []
    for number, line in enumerate(lines, 1):
        if line.strip():
            questions.append(_question(path, number, line))
    if not questions:
        raise MnemoError(f"{path}: no questions")
    return questions


def _question(path: Path, number: int, line: str) -> NoteQuestion:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise MnemoError(f"{path}:{number}: not JSON ({exc.msg})") from None
    gold = row.get("gold") if isinstance(row, dict) else None
    if not isinstance(row, dict) or not isinstance(row.get("question"), str) or not row["question"].strip():
        raise MnemoError(f"{path}:{number}: needs a non-empty 'question'")
    if not isinstance(gold, list) or not gold or not all(isinstance(g, str) and g for g in gold):
        raise MnemoError(f"{path}:{number}: 'gold' must be a non-empty list of note paths")
    return NoteQuestion(
        str(row.get("id") or f"q{number}"), row["question"], tuple(gold), str(row.get("kind") or "fact")
    )


def distinct_notes(result: RecallResult) -> list[str]:
    """The notes recall's items come from, first appearance first (summaries name no note)."""
    return list(dict.fromkeys(i.path for i in result.items if i.kind == "chunk" and i.path))


@dataclass
class Vault:
    """A vault ingested into its own namespace by the ingest pipeline, ready to be questioned."""

    pipeline: IngestPipeline
    ingested: IngestRun
    engine: RecallEngine


def ingest_vault(vault: Path, kind: VaultKind, root: Path, embedder: Embedder, ontology: Ontology,
                 settings: RecallSettings, max_words: int = 180) -> Vault:
    """Ingest the vault (read in place, never written) into a fresh namespace under root."""
    namespace = "notes"
    config = MnemoConfig(data_dir=root / "data", chunking=ChunkingConfig(max_words=max_words), namespaces={
        namespace: NamespaceConfig(sources=(SourceConfig(kind=kind, path=vault),))
    })
    pipeline = IngestPipeline.of(config, namespace, ontology, embedder)
    ingested = pipeline.run()
    engine = RecallEngine(pipeline.files.root, pipeline.vectors, pipeline.graph, embedder,
                          replace(settings, random_share=0.0), seed=0, session=pipeline.files.session)
    return Vault(pipeline, ingested, engine)


class NoteIndex:
    """BM25 over whole notes (title and body), in LanceDB's full-text index: the baseline."""

    def __init__(self, files: NamespaceFiles, root: Path, language: str = "English") -> None:
        docs = files.read_documents()
        self.index = TextIndex(root, [d.path for d in docs], [f"{d.title}\n{d.body}" for d in docs], language)

    def search(self, question: str, k: int) -> list[str]:
        text = fts_query(question)
        return self.index.search(text, k) if text else []


def ask_all(vault: Vault, questions: list[NoteQuestion], scores: NoteScores, system: str) -> None:
    for question in questions:
        result = vault.engine.recall(question.text, k=DEPTH, mode="eager")
        scores.add(system, question, distinct_notes(result))


def evaluate_notes(
    qa_path: Path, vault: Path, kind: VaultKind, embedder: Embedder, ontology: Ontology, *, after_sleep: bool = False,
    settings: RecallSettings | None = None, progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Score mnemo (and, with `after_sleep`, mnemo after a consolidation) against BM25 over whole notes."""
    if kind not in ("obsidian", "logseq"):
        raise MnemoError(f"unknown vault kind {kind!r}: use obsidian or logseq")
    if not Path(vault).is_dir():
        raise MnemoError(f"{vault}: not a folder")
    questions = load_questions(qa_path)
    scores = NoteScores()
    steps: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory(prefix="mnemo-notes-") as tmp:
        ingested = ingest_vault(Path(vault), kind, Path(tmp), embedder, ontology, settings or RecallSettings())
        steps["ingest"] = ingested.ingested.steps
        unread = unreadable(qa_path, Path(vault), questions, ingested.pipeline.files)
        index = NoteIndex(ingested.pipeline.files, Path(tmp) / "baseline")
        for question in questions:
            scores.add("bm25", question, index.search(question.text, DEPTH))
        ask_all(ingested, questions, scores, "mnemo")
        if progress:
            progress(f"{len(questions)} questions asked before sleep")
        if after_sleep:
            SleepFiles(ingested.pipeline.files.root).access_log.unlink(missing_ok=True)
            steps["sleep"] = sleep_steps(consolidate_for_eval(ingested.pipeline))
            ask_all(ingested, questions, scores, "mnemo after sleep")
    return {**summarize_notes(scores, Path(vault).name, after_sleep), "unreadable": unread, "steps": steps}


def unreadable(qa_path: Path, vault: Path, questions: list[NoteQuestion], files: NamespaceFiles) -> dict[str, str]:
    """Question id -> why none of its gold notes could be read (the source's problem report), for
    questions whose gold notes exist but were not ingested: they stay in the scores, found by no
    system. A gold path that is not in the vault at all is an error in the question file."""
    absent = sorted({g for q in questions for g in q.gold if not (vault / g).is_file()})
    if absent:
        raise MnemoError(f"{qa_path}: gold notes not in {vault}: {', '.join(absent[:5])}")
    read = {d.path for d in files.read_documents()}
    problems = {str(p["path"]): str(p["reason"]) for p in files.read_problems()}
    return {q.id: "; ".join(f"{g}: {problems.get(g, 'not read')}" for g in q.gold)
            for q in questions if not any(g in read for g in q.gold)}


def _figures(rows: list[tuple[str, int, int, float]]) -> dict[str, float]:
    n = len(rows) or 1
    out = {f"hit@{k}": round(sum(1 for _, r, _, _ in rows if 0 < r <= k) / n, 4) for k in KS}
    out["MRR"] = round(sum(1 / r for _, r, _, _ in rows if r) / n, 4)
    out[f"coverage@{COVERAGE_DEPTH}"] = round(sum(c for *_, c in rows) / n, 4)
    out["notes"] = round(sum(c for _, _, c, _ in rows) / n, 2)
    return out


def summarize_notes(scores: NoteScores, vault: str, after_sleep: bool) -> dict[str, Any]:
    """The report: per system, overall and per question kind hit@k, MRR, gold coverage and distinct
    notes per answer, and each question's first COVERAGE_DEPTH notes (`answers`)."""
    systems = {}
    for system, rows in scores.values.items():
        kinds = sorted({row[0] for row in rows})
        systems[system] = {"overall": _figures(rows),
                           "by_kind": {kind: {**_figures([r for r in rows if r[0] == kind]),
                                              "questions": sum(1 for r in rows if r[0] == kind)} for kind in kinds}}
    questions = len(next(iter(scores.values.values()), []))
    return {"vault": vault, "questions": questions, "after_sleep": after_sleep, "depth": DEPTH, "systems": systems,
            "answers": scores.answers}


def format_notes_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table (one row per system and question kind)."""
    head = ["hit@1", "hit@5", "hit@10", "MRR", f"coverage@{COVERAGE_DEPTH}", "notes"]
    lines = [
        f"Note recall on {report['vault']} — {report['questions']} questions"
        f" (notes: distinct notes in {report['depth']} items)",
        *steps_lines(report),
    ]
    if report.get("unreadable"):
        lines.append(
            f"{len(report['unreadable'])} questions have gold notes the source could not read (scored as misses): "
            + ", ".join(report["unreadable"])
        )
    labels = [h.replace("coverage", "cov") for h in head]
    lines.append(f"{'system':<18} {'kind':<10} {'n':>3} " + " ".join(f"{h:>6}" for h in labels))
    for name, figures in report["systems"].items():
        rows = [("all", report["questions"], figures["overall"])]
        rows += [(kind, row["questions"], row) for kind, row in figures["by_kind"].items()]
        for kind, n, row in rows:
            lines.append(f"{name:<18} {kind:<10} {n:>3} " + " ".join(f"{row[h]:>6.3f}" for h in head))
    return "\n".join(lines)


def steps_lines(report: dict[str, Any]) -> list[str]:
    """The header lines naming the steps an evaluation ran (ingest, and sleep when it ran)."""
    return [describe_steps(steps, stage) for stage, steps in report.get("steps", {}).items()]
