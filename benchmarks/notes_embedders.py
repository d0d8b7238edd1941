"""Note recall (`mnemo eval notes`) of several embedders and ranking settings, side by side.

Usage: .venv/bin/python -m benchmarks.notes_embedders [--corpora DIR] [--only obsidian-kepano ...] [--json OUT]
           minilm 'e5:{"cosine_weight": 20.0}' ...

Each argument is an embedder kind, optionally followed by `:` and RecallSettings overrides as
JSON. Each vault of tests/data/notes_qa that is present under DIR (default ../shared/corpora)
is ingested once per embedder kind and asked every question with each variant of that kind;
hit@1/5/10 and MRR per variant and vault are printed and written to OUT.
"""

import argparse
import json
import os
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.eval.notes import NoteScores, ask_all, ingest_vault, load_questions, summarize_notes  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
QA = REPO / "tests" / "data" / "notes_qa"
KINDS = {"obsidian-kepano": "obsidian", "obsidian-ideaverse": "obsidian", "logseq-docs": "logseq"}


def variant(text: str) -> tuple[str, str, dict[str, Any]]:
    """`e5:{"cosine_weight": 20}` -> (label, embedder kind, overrides)."""
    kind, _, overrides = text.partition(":")
    return text, kind, json.loads(overrides) if overrides else {}


def run_vault(corpus: Path, variants: list[tuple[str, str, dict[str, Any]]], root: Path) -> dict[str, Any]:
    """Every variant's figures on one vault, each embedder ingesting it once."""
    questions = load_questions(QA / f"{corpus.name}.jsonl")
    out: dict[str, Any] = {}
    for kind in dict.fromkeys(k for _, k, _ in variants):
        embedder = build_embedder(EmbedderConfig(kind=kind))  # type: ignore[arg-type]
        ingested = ingest_vault(corpus, KINDS[corpus.name], root / kind, embedder, load_ontology(), RecallSettings())  # type: ignore[arg-type]
        for label, _, overrides in (v for v in variants if v[1] == kind):
            ingested.engine.settings = RecallSettings(random_share=0.0).with_overrides(**overrides)
            scores = NoteScores()
            ask_all(ingested, questions, scores, "mnemo")
            out[label] = summarize_notes(scores, corpus.name, False)["systems"]["mnemo"]["overall"]
            print(f"{corpus.name:<20} {label:<40} hit@1 {out[label]['hit@1']:.3f} hit@5 {out[label]['hit@5']:.3f} "
                  f"hit@10 {out[label]['hit@10']:.3f} MRR {out[label]['MRR']:.3f}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+", type=variant)
    parser.add_argument("--corpora", type=Path, default=REPO.parent / "shared" / "corpora")
    parser.add_argument("--only", nargs="*", default=list(KINDS))
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report = {}
    for name in args.only:
        if (args.corpora / name).is_dir():
            with tempfile.TemporaryDirectory(prefix="mnemo-notes-embedders-") as tmp:
                report[name] = run_vault(args.corpora / name, args.variants, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
