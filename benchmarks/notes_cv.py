"""The ranking fitted on the notes questions, leave one vault out, for one embedder; and the
note-level fusion of two runs' answers (`benchmarks/fitting/notes_cv.py` says what is scored).

Usage: .venv/bin/python -m benchmarks.notes_cv ask EMBEDDER --runs DIR [--corpora DIR] [--only VAULT ...]
       .venv/bin/python -m benchmarks.notes_cv fit EMBEDDER --runs DIR [--json OUT]
       .venv/bin/python -m benchmarks.notes_cv fuse A.json:SYSTEM B.json:SYSTEM [--json OUT]

`ask` ingests each vault (with `--sample N`, only the notes that answer its questions and N
others) and writes its asked questions to `DIR/<embedder>-<vault>.json` (run one
process per vault to ask them side by side); `fit` fits and scores the folds over the vaults asked.

`--fuse` ranks each question's notes by the reciprocal ranks (k = 60) the two runs' systems gave
them, e.g. MiniLM's recall and e5's recall; both runs must have asked the same questions.
"""

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.fitting.notes_cv import (  # noqa: E402
    SETS,
    NotesSet,
    ask_vault,
    figures,
    held_out,
    load,
    note_figures,
    save,
)
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.eval.notes import load_questions  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QA = REPO / "tests" / "data" / "notes_qa"
RRF_K = 60


def say(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f} {message}", flush=True)


def ask(kind: str, corpora: Path, only: list[str], runs: Path, sample: int | None = None) -> None:
    embedder = build_embedder(EmbedderConfig(kind=kind))  # type: ignore[arg-type]
    runs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mnemo-notes-cv-") as tmp:
        for notes_set in (s for s in SETS if s.vault in only and (corpora / s.vault).is_dir()):
            start = time.perf_counter()
            where = corpora if sample is None else sampled(notes_set, corpora, sample, Path(tmp) / "sampled")
            asked = ask_vault(notes_set, where, QA, Path(tmp) / notes_set.vault, embedder, load_ontology())
            save(asked, runs / f"{kind}-{notes_set.vault}.json")
            say(f"{kind} {notes_set.vault}: {len(asked.questions)} questions, {len(asked.training.y)} candidates, "
                f"{time.perf_counter() - start:.0f} s")


def sampled(notes_set: NotesSet, corpora: Path, others: int, into: Path) -> Path:
    """A copy of the vault's notes that answer its questions and `others` more, the same for every
    embedder (the first by a hash of their paths); the corpora folder that holds the copy."""
    vault = corpora / notes_set.vault
    gold = {g for name in notes_set.files if (QA / name).is_file() for q in load_questions(QA / name) for g in q.gold}
    rest = sorted((p.relative_to(vault).as_posix() for p in vault.rglob("*.md")),
                  key=lambda path: hashlib.sha1(path.encode()).hexdigest())
    for path in sorted(gold) + [p for p in rest if p not in gold][:others]:
        target = into / notes_set.vault / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(vault / path, target)
    return into


def fit(kind: str, runs: Path) -> dict[str, Any]:
    asked = [load(runs / f"{kind}-{s.vault}.json") for s in SETS if (runs / f"{kind}-{s.vault}.json").is_file()]
    folds = held_out(asked, say)
    return {"embedder": kind, "vaults": {a.name: {
        "figures": figures(a), "fold": folds[a.name],
        "questions": [{"id": q.id, "gold": list(q.gold), "cross": c} for q, c in zip(a.questions, a.cross)],
        "answers": a.answers} for a in asked}}


def fuse(first: str, second: str) -> dict[str, Any]:
    """Each vault's questions ranked by the reciprocal ranks two runs' systems gave their notes."""
    (path_a, system_a), (path_b, system_b) = (part.rsplit(":", 1) for part in (first, second))
    run_a, run_b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (path_a, path_b))
    out: dict[str, Any] = {"fused": [first, second], "vaults": {}}
    for name, vault in run_a["vaults"].items():
        answers_b = run_b["vaults"].get(name, {}).get("answers", {}).get(system_b)
        if system_a not in vault["answers"] or answers_b is None:
            continue  # a vault one of the runs did not ask, or a system it did not score there
        ranks: dict[str, list[int]] = {"all": [], "same": [], "cross": []}
        for question, notes_a, notes_b in zip(vault["questions"], vault["answers"][system_a], answers_b):
            score: dict[str, float] = {}
            for notes in (notes_a, notes_b):
                for rank, note in enumerate(notes, 1):
                    score[note] = score.get(note, 0.0) + 1 / (RRF_K + rank)
            fused = sorted(score, key=lambda n: -score[n])
            rank = next((n for n, p in enumerate(fused, 1) if p in question["gold"]), 0)
            for part in ("all", "cross" if question["cross"] else "same"):
                ranks[part].append(rank)
        out["vaults"][name] = {part: note_figures(r) for part, r in ranks.items()}
    return out


def table(report: dict[str, Any]) -> str:
    lines = []
    for name, vault in report["vaults"].items():
        for system, parts in (vault["figures"].items() if "figures" in vault else [("fused", vault)]):
            lines.append(f"{name:<26} {system:<30} " + "  ".join(
                f"{part} {p['hit@5']:.3f}/{p['MRR']:.3f} ({p['questions']})" for part, p in parts.items()))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("ask", "fit", "fuse"))
    parser.add_argument("names", nargs="+", help="the embedder (ask, fit), or two RUN.json:SYSTEM (fuse)")
    parser.add_argument("--runs", type=Path, default=Path("notes-cv-runs"))
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora")
    parser.add_argument("--only", nargs="*", default=[s.vault for s in SETS])
    parser.add_argument("--sample", type=int, default=None, help="ask: the gold notes and this many others")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if args.command == "ask":
        ask(args.names[0], args.corpora, args.only, args.runs, args.sample)
        return
    report = fit(args.names[0], args.runs) if args.command == "fit" else fuse(*args.names)
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
