"""LoCoMo recall by leave-one-conversation-out cross-validation, per embedder, in one run.

Usage: .venv/bin/python -m benchmarks.locomo_cv [FILE] [--embedders minilm e5] [--out benchmarks/results]
           [--stem NAME] [--write-ranker mnemo/recall/ranker.json] [--work DIR]

Each conversation of FILE (default: the dev split in ../shared/corpora/locomo) is ingested
once per embedder; the ranking weights are then fitted on all conversations but one and
scored on that one, for each in turn (`benchmarks/fitting/locomo_cv.py`). Prints, per embedder, the
cross-validated R@5/10/20 by category beside the in-sample fit, the shipped weights, BM25,
the plain hybrid and dense retrieval alone, and writes
`OUT/locomo_cv-<date>.json` and `OUT/locomo_cv-<date>.md`.
"""

import argparse
import json
import os
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.fitting.locomo_cv import cross_validate  # noqa: E402
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.eval.locomo import load_conversations, prepare  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402

DEFAULT_FILE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "locomo" / "locomo_dev.json"
RESULTS = Path(__file__).resolve().parent / "results"
BASELINES = (("shipped", "mnemo", "mnemo, shipped weights"), ("baselines", "bm25", "BM25"),
             ("baselines", "hybrid", "plain hybrid (RRF)"), ("baselines", "dense", "dense alone"))


def run_embedder(path: Path, kind: str, root: Path) -> dict[str, Any]:
    """Ingest every conversation with one embedder and run the protocol on them."""
    embedder, ontology = build_embedder(EmbedderConfig(kind=kind)), load_ontology()  # type: ignore[arg-type]
    start = time.perf_counter()
    prepared = [prepare(c, root / kind / str(i), embedder, ontology, RecallSettings())
                for i, c in enumerate(load_conversations(path))]
    ingest_s = round(time.perf_counter() - start, 1)
    print(f"{kind}: {len(prepared)} conversations ingested in {ingest_s} s", flush=True)
    report = cross_validate(prepared, RecallSettings(), progress=lambda m: print(f"{kind}: {m}", flush=True))
    return {"embedder": embedder.name, "ingest_s": ingest_s, **report}


def _row(label: str, figures: dict[str, Any]) -> str:
    cats = " | ".join(f"{figures['by_category'][c]['R@10']:.3f}" for c in ("1", "2", "3", "4"))
    overall = figures["overall"]
    return f"| {label} | {overall['R@5']:.3f} | {overall['R@10']:.3f} | {overall['R@20']:.3f} | {cats} |"


def table(kind: str, report: dict[str, Any]) -> list[str]:
    """Markdown: one row per system (R@5/10/20 and R@10 per category), then the folds' weights."""
    lines = [f"### {kind} ({report['embedder']}, ingest {report['ingest_s']} s)", "",
             "| system | R@5 | R@10 | R@20 | R@10 cat 1 | cat 2 | cat 3 | cat 4 |", "|---|---|---|---|---|---|---|---|"]
    for fit, result in report["fits"].items():
        lines.append(_row(f"mnemo, {fit} fit, cross-validated (held out)", result["scores"]["systems"]["mnemo"]))
        lines.append(_row(f"mnemo, {fit} fit on all, in-sample", result["in_sample"]["systems"]["mnemo"]))
    lines += [_row(label, report[part]["systems"][system]) for part, system, label in BASELINES]
    for fit, result in report["fits"].items():
        lines += ["", f"{fit} fit, per fold (R@10 of the held-out conversation; weights fitted on the others):", ""]
        lines += [f"- {f['held_out']}: {f['R@10']:.3f} {json.dumps(f['weights'])}" for f in result["folds"]]
        lines += [f"- fitted on all: {json.dumps(result['weights_fitted_on_all'])}"]
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--embedders", nargs="+", default=["minilm", "e5"], choices=["minilm", "e5", "hashing"])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--stem", default="locomo_cv", help="results file name before the date")
    parser.add_argument("--write-ranker", type=Path, metavar="PATH",
                        help="write the learned ranking fitted on every conversation there (the first embedder's), "
                             "e.g. mnemo/recall/ranker.json")
    parser.add_argument("--work", type=Path, default=None,
                        help="keep the ingested conversations here; a later run with the same folder ingests only "
                             "what changed (default: a temporary folder)")
    args = parser.parse_args()
    reports: dict[str, Any] = {"file": str(args.file), "date": date.today().isoformat(), "embedders": {}}
    with tempfile.TemporaryDirectory(prefix="mnemo-locomo-cv-") as tmp:
        for kind in args.embedders:
            reports["embedders"][kind] = run_embedder(args.file, kind, args.work or Path(tmp))
    questions = next(iter(reports["embedders"].values()))["shipped"]["questions"]
    lines = [f"## LoCoMo leave-one-conversation-out, {reports['date']}", "",
             f"{args.file.name}: {questions} questions of categories 1-4; recall@k over evidence turns.", ""]
    for kind, report in reports["embedders"].items():
        lines += table(kind, report)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{args.stem}-{reports['date']}"
    stem.with_suffix(".json").write_text(json.dumps(reports, indent=1), encoding="utf-8")
    stem.with_suffix(".md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    if args.write_ranker:
        first = next(iter(reports["embedders"].values()))
        model = json.loads(Path(first["fits"]["learned"]["weights_fitted_on_all"]["ranker"]).read_text(encoding="utf-8"))
        args.write_ranker.write_text(json.dumps(model | {"embedder": first["embedder"]}, sort_keys=True), encoding="utf-8")
        print(f"learned ranking fitted on all conversations written to {args.write_ranker}")


if __name__ == "__main__":
    main()
