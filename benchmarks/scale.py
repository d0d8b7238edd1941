"""Eager recall at vector scale, in its own process: generated chunks, mnemo's recall.

Usage: .venv/bin/python -m benchmarks.scale WORK --rows 1000000 --json OUT [--embedder minilm]

After the table and its indexes are built and recall is timed in this process, the same
queries are timed again in a fresh process that only opens the table, as a recall server
would (`--served`): the building process holds the generated vectors and what the index
build left behind, which a process serving recall does not.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks.measure import peak_rss_mib, warm  # noqa: E402
from benchmarks.recall_bench import queries, recall_latency, scale_path, vector_scale  # noqa: E402
from benchmarks.synth import Entity  # noqa: E402
from benchmarks.vector_index import ann_quality, ann_text_quality  # noqa: E402
from mnemo.config import EmbedderConfig  # noqa: E402
from mnemo.recall.settings import RecallSettings  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from mnemo.stores.vectors import VectorStore  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--exact-queries", type=int, default=20, help="queries timed with exact search, before the index")
    parser.add_argument("--served", action="store_true",
                        help="only time recall over the table an earlier run built in WORK, in this fresh process")
    parser.add_argument("--json", type=Path, required=True)
    args = parser.parse_args()
    embedder = build_embedder(EmbedderConfig(kind=args.embedder))
    warm(embedder)
    names = [Entity("project", f"Project {w}", "Projects") for w in ("Heron", "Lantern", "Compass", "Garden", "Signal")]
    texts = queries(names, args.queries)
    if args.served:
        result: dict[str, Any] = recall_latency(args.work, VectorStore(scale_path(args.work, args.rows)), embedder, texts)
        result["peak_rss_mib"] = peak_rss_mib()
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")
        return
    result = vector_scale(args.work, args.rows, embedder, texts, args.exact_queries)
    vectors, path = result.pop("vectors"), scale_path(args.work, args.rows)
    result["ann"] = ann_quality(path, vectors, args.queries)
    result["ann_text"] = ann_text_quality(path, vectors, np.asarray(embedder.encode(texts), dtype=np.float32), RecallSettings().pool)
    result.update({"embedder": embedder.name, "peak_rss_mib": peak_rss_mib()})
    del vectors
    result["served"] = _served(args)
    args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


def _served(args: argparse.Namespace) -> dict[str, Any]:
    """This run's recall timed again by `--served` in a fresh process."""
    out = args.work / "served.json"
    command = [sys.executable, "-m", "benchmarks.scale", str(args.work), "--rows", str(args.rows), "--embedder", args.embedder,
               "--queries", str(args.queries), "--served", "--json", str(out)]
    subprocess.run(command, check=True)
    return json.loads(out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
