"""How the cost of a small change grows with the graph's history, and what compaction gives back.

Each cycle appends a line to one daily note of an ingested store, runs the ingest job, then the
sleep job (both in process, as the suite runs them), and records the graph file's size and the
jobs' times. After `--cycles` cycles the graph is rebuilt (`mnemo.compaction.compact_graph`),
and `--after` more cycles are measured. The store's own `sleep.compact_growth` is set out of
reach for the run, so only that one rebuild happens. Prints a table and, with --json, writes it.

Usage: .venv/bin/python -m benchmarks.aging CONFIG [--cycles 20] [--after 3] [--json OUT]
CONFIG: the mnemo.yaml of an ingested store, e.g. the suite's work folder (`benchmarks.worker WORK`
writes WORK/mnemo.yaml); its vault's `Daily` folder supplies the notes changed.
"""

import argparse
import json
import time
from pathlib import Path
from typing import Any

import yaml

from benchmarks.measure import NAMESPACE, IngestRunner, step_times, timed, warm
from mnemo.compaction import compact_graph
from mnemo.stores.graph import GraphStore
from ontology import load_ontology


def _sleep(runner: IngestRunner) -> tuple[float, dict[str, float]]:
    job = runner.defs.resolve_job_def("sleep_mode_job")
    (wall, _), result = timed(lambda: job.execute_in_process(partition_key=NAMESPACE, instance=runner.instance))
    if not result.success:
        raise RuntimeError("the sleep job failed; see the Dagster output above")
    return wall, step_times(runner.instance, result.run_id)


def _cycle(runner: IngestRunner, note: Path, label: str) -> dict[str, Any]:
    note.write_text(note.read_text(encoding="utf-8") + f"\n\nAnother thought about the garden budget ({label}).\n",
                    encoding="utf-8")
    ingest = runner.run()
    sleep, steps = _sleep(runner)
    graph = runner.files.graph_path
    return {"cycle": label, "graph_mb": round(graph.stat().st_size / 2**20, 1), "ingest_s": round(ingest.wall, 2),
            "entity_graph_s": round(ingest.assets.get("entity_graph", 0.0), 2), "sleep_s": round(sleep, 2),
            "sleep_step_s": round(steps.get("sleep_mode", 0.0), 2)}


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
    runner = IngestRunner(config)
    warm(runner.embedder())
    vault = next(Path(s["path"]) for s in yaml.safe_load(config.read_text())["namespaces"][NAMESPACE]["sources"] if s["kind"] == "obsidian")
    days = sorted((vault / "Daily").rglob("*.md"))
    if not days:
        raise SystemExit(f"{vault}/Daily has no notes to change")
    runner.run()  # catch up with whatever changed before
    rows = []
    for i in range(args.cycles):
        rows.append(_cycle(runner, days[(len(days) // 3 + 29 * i) % len(days)], str(i + 1)))
        print(rows[-1], flush=True)
    start = time.perf_counter()
    files = runner.files
    done = compact_graph(files, GraphStore(files.graph_path, load_ontology()))
    compaction = {**done.to_dict(), "wall_s": round(time.perf_counter() - start, 2)}
    print("compaction", compaction, flush=True)
    for i in range(args.after):
        rows.append(_cycle(runner, days[(len(days) // 3 + 29 * (args.cycles + i)) % len(days)], f"after {i + 1}"))
        print(rows[-1], flush=True)
    print(f"\n{'cycle':>9} {'graph MB':>9} {'ingest s':>9} {'entity_graph s':>15} {'sleep job s':>12} {'sleep step s':>13}")
    for r in rows:
        print(f"{r['cycle']:>9} {r['graph_mb']:>9} {r['ingest_s']:>9} {r['entity_graph_s']:>15} {r['sleep_s']:>12} {r['sleep_step_s']:>13}")
    print(f"compaction: {done.size / 2**20:.1f} MB -> {done.size_after / 2**20:.1f} MB in {done.seconds} s")
    if args.json:
        args.json.write_text(json.dumps({"cycles": rows, "compaction": compaction}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
