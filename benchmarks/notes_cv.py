"""The ranking fitted on the notes questions, leave one vault out, for one embedder; and the
note-level fusion of two runs' answers (`benchmarks/fitting/notes_cv.py` says what is scored).

Usage: .venv/bin/python -m benchmarks.notes_cv EMBEDDER [--corpora DIR] [--only VAULT ...] [--json OUT]
       .venv/bin/python -m benchmarks.notes_cv --fuse A.json:SYSTEM B.json:SYSTEM [--json OUT]

`--fuse` ranks each question's notes by the reciprocal ranks (k = 60) the two runs' systems gave
them, e.g. MiniLM's recall and e5's recall; both runs must have asked the same questions.
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.fitting.notes_cv import SETS, Asked, ask_vault, figures, held_out, note_figures  # noqa: E402
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QA = REPO / "tests" / "data" / "notes_qa"
RRF_K = 60


def say(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f} {message}", flush=True)


def run(kind: str, corpora: Path, only: list[str]) -> dict[str, Any]:
    embedder = build_embedder(EmbedderConfig(kind=kind))  # type: ignore[arg-type]
    asked: list[Asked] = []
    with tempfile.TemporaryDirectory(prefix="mnemo-notes-cv-") as tmp:
        for notes_set in (s for s in SETS if s.vault in only and (corpora / s.vault).is_dir()):
            start = time.perf_counter()
            asked.append(ask_vault(notes_set, corpora, QA, Path(tmp) / notes_set.vault, embedder, load_ontology()))
            say(f"{notes_set.vault}: {len(asked[-1].questions)} questions, {len(asked[-1].training.y)} candidates, "
                f"{time.perf_counter() - start:.0f} s")
        folds = held_out(asked, say)
    return {"embedder": embedder.name, "vaults": {a.name: {
        "figures": figures(a), "fold": folds[a.name],
        "questions": [{"id": q.id, "gold": list(q.gold), "cross": c} for q, c in zip(a.questions, a.cross)],
        "answers": a.answers} for a in asked}}


def fuse(first: str, second: str) -> dict[str, Any]:
    """Each vault's questions ranked by the reciprocal ranks two runs' systems gave their notes."""
    (path_a, system_a), (path_b, system_b) = (part.rsplit(":", 1) for part in (first, second))
    run_a, run_b = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (path_a, path_b))
    out: dict[str, Any] = {"fused": [first, second], "vaults": {}}
    for name, vault in run_a["vaults"].items():
        answers_b = run_b["vaults"][name]["answers"][system_b]
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
    parser.add_argument("embedder", nargs="?", default="minilm")
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora")
    parser.add_argument("--only", nargs="*", default=[s.vault for s in SETS])
    parser.add_argument("--fuse", nargs=2, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report = fuse(*args.fuse) if args.fuse else run(args.embedder, args.corpora, args.only)
    print(table(report))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
