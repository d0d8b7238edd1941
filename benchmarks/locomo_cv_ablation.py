"""LoCoMo ablation: each of recall's changes on and off, cross-validated, in one run.

Usage: .venv/bin/python -m benchmarks.locomo_cv_ablation [FILE] [--embedder minilm] [--cache DIR] [--out DIR]

Each conversation of FILE (default: the dev split in ../shared/corpora/locomo) is ingested into
its own namespace (under DIR when given, where a later run finds it and ingests only what
changed; else a temporary directory), then sleep mode's speaker profile items are built for it
(only that part of sleep mode, so that its summaries do not enter the comparison). Every
variant of `benchmarks/fitting/locomo_cv_ablation.py` is then fitted and scored leave-one-conversation-out.
Prints the table and writes `OUT/locomo_cv_ablation-<date>.json` and `.md`.
"""

import argparse
import json
import os
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.fitting.locomo_cv_ablation import ablate  # noqa: E402
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.eval.locomo import Scores, ask, load_conversations, prepare, summarize  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.sleep.consolidate import run_speakers  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo" / "locomo_dev.json"
RESULTS = Path(__file__).resolve().parent / "results"


def _row(label: str, figures: dict[str, Any], p95: str) -> str:
    cats = " | ".join(f"{figures['by_category'][c]['R@10']:.3f}" for c in ("1", "2", "3", "4"))
    overall = figures["overall"]
    return f"| {label} | {overall['R@5']:.3f} | {overall['R@10']:.3f} | {overall['R@20']:.3f} | {cats} | {p95} |"


def table(file: Path, embedder: str, rows: list[dict[str, Any]], baselines: dict[str, Any]) -> list[str]:
    """Markdown: one row per variant (held out), the baselines, then each variant's fold weights."""
    lines = [f"## LoCoMo ablation, leave-one-conversation-out, {date.today().isoformat()}", "",
             f"{file.name}, {embedder}: {baselines['questions']} questions of categories 1-4; recall@k over evidence "
             "turns. Every mnemo row is held out: its weights were fitted on the other four conversations.", "",
             "| variant | R@5 | R@10 | R@20 | R@10 cat 1 | cat 2 | cat 3 | cat 4 | p95 ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        latencies = list(row["scores"]["latency"].values())
        p95 = latencies[0].get("p95_ms") if latencies else None
        lines.append(_row(row["name"], row["scores"]["systems"]["mnemo"], "" if p95 is None else str(p95)))
    lines += [_row(label, baselines["systems"][system], "") for system, label in
              (("bm25", "BM25"), ("hybrid", "plain hybrid (RRF)"))]
    for row in rows:
        lines += ["", f"{row['name']} ({row['mode']}; switches {json.dumps(row['switches'])}), per fold:", ""]
        lines += [f"- {f['held_out']}: {f['R@10']:.3f} {json.dumps(f['weights'])}" for f in row["folds"]]
    return [*lines, ""]


def run(path: Path, kind: str, root: Path) -> tuple[list[dict[str, Any]], dict[str, Any], str]:
    embedder, ontology = build_embedder(EmbedderConfig(kind=kind)), load_ontology()  # type: ignore[arg-type]
    prepared = [prepare(c, root / kind / str(i), embedder, ontology, RecallSettings())
                for i, c in enumerate(load_conversations(path))]
    baselines = Scores((5, 10, 20))
    for p in prepared:
        items = run_speakers(p.pipeline.files, p.pipeline.vectors)
        print(f"{p.sample_id}: {len(p.questions)} questions, {items} speaker profile items", flush=True)
        ask(p, baselines, ("bm25", "hybrid"), latency=False)
    rows = ablate(prepared, RecallSettings(), progress=lambda m: print(m, flush=True))
    return rows, summarize(baselines), embedder.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "e5", "hashing"])
    parser.add_argument("--cache", type=Path, help="keep the ingested conversations here and reuse them")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemo-locomo-cv-ablation-") as tmp:
        rows, baselines, name = run(args.file, args.embedder, args.cache or Path(tmp))
    lines = table(args.file, name, rows, baselines)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"locomo_cv_ablation-{date.today().isoformat()}"
    stem.with_suffix(".json").write_text(json.dumps({"file": str(args.file), "embedder": name, "variants": rows,
                                                     "baselines": baselines}, indent=1), encoding="utf-8")
    stem.with_suffix(".md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
