"""First-ingest time per passage of several embedders, from one run: the same vault ingested into a
fresh namespace per embedder (`mnemo.eval.notes.ingest_vault`, the evaluation's own path), one
after the other in this process, each model loaded and warmed before its clock starts.

Usage: .venv/bin/python -m benchmarks.embedder_ingest VAULT [--kind obsidian] [--limit N]
           [--embedders minilm e5] [--json OUT]
`--limit N` ingests the first N notes (by path) of the vault, copied to a temp folder.
"""

import argparse
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

from benchmarks.measure import warm  # noqa: E402
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.eval.notes import ingest_vault  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from ontology import load_ontology  # noqa: E402


def _subset(vault: Path, limit: int | None, into: Path) -> Path:
    if limit is None:
        return vault
    for note in sorted(vault.rglob("*.md"))[:limit]:
        target = into / note.relative_to(vault)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(note, target)
    return into


def ingest_time(vault: Path, kind: str, embedder_kind: str, work: Path) -> dict[str, Any]:
    embedder = build_embedder(EmbedderConfig(kind=embedder_kind))  # type: ignore[arg-type]
    warm(embedder)
    start, cpu = time.perf_counter(), time.process_time()
    ingested = ingest_vault(vault, kind, work, embedder, load_ontology(), RecallSettings())  # type: ignore[arg-type]
    wall, cpu_s = time.perf_counter() - start, time.process_time() - cpu
    passages = ingested.pipeline.vectors.count("chunks")
    return {"embedder": embedder.name, "passages": passages, "wall_s": round(wall, 2), "cpu_s": round(cpu_s, 2),
            "ms_per_passage": round(1000 * wall / max(passages, 1), 2),
            "cpu_ms_per_passage": round(1000 * cpu_s / max(passages, 1), 2), "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--kind", default="obsidian")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--embedders", nargs="+", default=["minilm", "e5"])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mnemo-embed-ingest-") as tmp:
        vault = _subset(args.vault, args.limit, Path(tmp) / "vault")
        runs = [ingest_time(vault, args.kind, kind, Path(tmp) / kind) for kind in args.embedders]
    first = runs[0]
    result = {"vault": args.vault.name, "limit": args.limit, "runs": runs,
              "ratio_to_first": {r["embedder"]: round(r["ms_per_passage"] / first["ms_per_passage"], 2) for r in runs},
              "cpu_ratio_to_first": {r["embedder"]: round(r["cpu_ms_per_passage"] / first["cpu_ms_per_passage"], 2)
                                     for r in runs}}
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
