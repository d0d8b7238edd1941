"""How the cost of a small change grows with the stores' history, and what compaction gives back.

Each cycle appends a line to one daily note of an ingested store, runs the ingest job, then the
sleep job (both in process, as the suite runs them), and records the graph file's size, the
chunks table's fragments and the jobs' times. Eager search latency (the hybrid chunk search
alone, 30 queries) is measured before the cycles, after them, and after the stores are compacted
(`mnemo.maintenance.compaction.compact_stores`, forced), after which `--after` more cycles are measured.
Automatic compaction is set out of reach for the run, so only that one happens. Prints a table
and, with --json, writes it.

Usage: .venv/bin/python -m benchmarks.aging CONFIG [--cycles 20] [--after 3] [--json OUT]
CONFIG: the mnemo.yaml of an ingested store, e.g. the suite's work folder (`benchmarks.worker WORK`
writes WORK/mnemo.yaml); its vault's `Daily` folder supplies the notes changed.
"""

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import yaml

from benchmarks.measure import NAMESPACE, IngestRunner, warm
from benchmarks.sleep_bench import run_job
from mnemo.maintenance import compaction
from mnemo.maintenance.compaction import compact_stores
from mnemo.recall.hybrid import recall_chunks
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore
from ontology import load_ontology

QUERIES = ("garden budget", "meeting about the roadmap", "trip to Kyoto", "reading list", "sleep and health",
           "launch of the project")


def _search(runner: IngestRunner) -> dict[str, float]:
    """p50 and p95 of the eager hybrid chunk search, ms (one warm-up query first)."""
    store, embedder = VectorStore(runner.files.vectors_path), runner.embedder()
    recall_chunks(store, embedder, "warm up")
    took = []
    for query in QUERIES * 5:
        start = time.perf_counter()
        recall_chunks(store, embedder, query, k=10)
        took.append((time.perf_counter() - start) * 1000)
    took.sort()
    return {"p50_ms": round(statistics.median(took), 1), "p95_ms": round(took[int(0.95 * len(took)) - 1], 1)}


def _cycle(runner: IngestRunner, note: Path, label: str) -> dict[str, Any]:
    note.write_text(note.read_text(encoding="utf-8") + f"\n\nAnother thought about the garden budget ({label}).\n",
                    encoding="utf-8")
    ingest = runner.run()
    sleep = run_job(runner, "sleep_mode_job")
    graph, vectors = runner.files.graph_path, VectorStore(runner.files.vectors_path)
    return {"cycle": label, "graph_mb": round(graph.stat().st_size / 2**20, 1), "fragments": vectors.fragments("chunks"),
            "ingest_s": round(ingest.wall, 2),
            "entity_graph_s": round(ingest.assets.get("entity_graph", 0.0), 2), "sleep_s": round(sleep["s"], 2),
            "sleep_step_s": round(sleep["assets_s"].get("sleep_mode", 0.0), 2)}


def _without_automatic_compaction(config: Path) -> Path:
    data = yaml.safe_load(config.read_text(encoding="utf-8"))
    data.setdefault("sleep", {})["compact_growth"] = 1e9
    out = config.with_name("mnemo.aging.yaml")
    out.write_text(yaml.safe_dump(data), encoding="utf-8")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", type=Path)
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument("--after", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    config = _without_automatic_compaction(args.config.resolve())
    compaction.FRAGMENT_SLACK = 10**9  # and no vector table either, until the one compaction measured
    runner = IngestRunner(config)
    warm(runner.embedder())
    vault = next(Path(s["path"]) for s in yaml.safe_load(config.read_text())["namespaces"][NAMESPACE]["sources"] if s["kind"] == "obsidian")
    days = sorted((vault / "Daily").rglob("*.md"))
    if not days:
        raise SystemExit(f"{vault}/Daily has no notes to change")
    runner.run()  # catch up with whatever changed before
    search = {"before": _search(runner)}
    rows = []
    for i in range(args.cycles):
        rows.append(_cycle(runner, days[(len(days) // 3 + 29 * i) % len(days)], str(i + 1)))
        print(rows[-1], flush=True)
    search["after cycles"] = _search(runner)
    start = time.perf_counter()
    files = runner.files
    done = compact_stores(files, GraphStore(files.graph_path, load_ontology()), VectorStore(files.vectors_path))
    compacted = {**done.to_dict(), "wall_s": round(time.perf_counter() - start, 2)}
    print("compaction", compacted, flush=True)
    search["after compaction"] = _search(runner)
    for i in range(args.after):
        rows.append(_cycle(runner, days[(len(days) // 3 + 29 * (args.cycles + i)) % len(days)], f"after {i + 1}"))
        print(rows[-1], flush=True)
    print(f"\n{'cycle':>9} {'graph MB':>9} {'fragments':>10} {'ingest s':>9} {'entity_graph s':>15} {'sleep job s':>12} {'sleep step s':>13}")
    for r in rows:
        print(f"{r['cycle']:>9} {r['graph_mb']:>9} {r['fragments']:>10} {r['ingest_s']:>9} {r['entity_graph_s']:>15} {r['sleep_s']:>12} "
              f"{r['sleep_step_s']:>13}")
    print(f"compaction ({compacted['wall_s']} s): graph {done.size / 2**20:.1f} MB -> {done.size_after / 2**20:.1f} MB "
          f"in {done.seconds} s; vector tables (fragments before, after) {done.tables}")
    for when, figures in search.items():
        print(f"eager chunk search {when}: p50 {figures['p50_ms']} ms, p95 {figures['p95_ms']} ms")
    if args.json:
        args.json.write_text(json.dumps({"cycles": rows, "compaction": compacted, "search": search}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
