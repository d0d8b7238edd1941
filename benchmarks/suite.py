"""mnemo's performance suite: how long ingest, recall and consolidation take, and how they grow.

Each size runs in a fresh process (benchmarks/worker.py) on a seeded synthetic vault; the
vector-scale recall runs on generated vectors. Tables are printed at the end and the
whole result is written as JSON under benchmarks/out/.

Usage: .venv/bin/python -m benchmarks.suite [--quick] [--sizes 1000 3000 10000]
         [--embedders minilm hashing] [--model-sizes 1000 3000] [--vector-scale 100000 1000000] [--profile]
"""

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import report, targets
from benchmarks.host import host_speed, speed_line

OUT = Path(__file__).resolve().parent / "out"


def _worker(args: list[str], log: Path) -> dict[str, Any]:
    """Run benchmarks.worker in a fresh process; its Dagster logs go to `log`."""
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-") as tmp:
        result = Path(tmp) / "result.json"
        command = [sys.executable, "-m", "benchmarks.worker", str(Path(tmp) / "work"), *args, "--json", str(result)]
        with log.open("a", encoding="utf-8") as stream:
            done = subprocess.run(command, stdout=stream, stderr=stream, check=False)
        if done.returncode != 0:
            raise SystemExit(f"benchmark worker failed ({' '.join(args)}); see {log}")
        return json.loads(result.read_text(encoding="utf-8"))


def _scale(rows: int, embedder: str, queries: int, log: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mnemo-scale-") as tmp:
        result = Path(tmp) / "result.json"
        command = [sys.executable, "-m", "benchmarks.scale", tmp, "--rows", str(rows), "--embedder", embedder,
                   "--queries", str(queries), "--json", str(result)]
        with log.open("a", encoding="utf-8") as stream:
            done = subprocess.run(command, stdout=stream, stderr=stream, check=False)
        if done.returncode != 0:
            raise SystemExit(f"vector-scale benchmark failed ({rows} rows); see {log}")
        return json.loads(result.read_text(encoding="utf-8"))


def _options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="under 5 minutes: every section at 1k notes with the hashing embedder, ingest/raw/peer/recall "
                             "with the packaged MiniLM on 200 notes, recall with the ANN index at 20k chunks")
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 3000, 10000], help="vault sizes in notes (none: skip)")
    parser.add_argument("--embedders", nargs="+", default=["minilm", "hashing"])
    parser.add_argument("--model-sizes", type=int, nargs="+", default=None,
                        help="sizes for the model embedders (all but hashing); default: --sizes")
    parser.add_argument("--vector-scale", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--profile", action="store_true", help="also profile one full ingest per embedder, the consolidation after it, and its re-run after one changed note")
    parser.add_argument("--profile-notes", type=int, default=None, help="size of the profiled vault (default: the largest)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--render", type=Path, nargs="+", help="only print the tables of saved results (partial ones too), merged")
    args = parser.parse_args()
    args.light = args.quick
    if args.quick:
        args.sizes, args.embedders, args.model_sizes, args.vector_scale = [1000], ["hashing", "minilm"], [200], [20_000]
        args.queries = min(args.queries, 50)
    return args


def _sizes(args: argparse.Namespace, embedder: str) -> list[int]:
    return args.sizes if embedder == "hashing" or not args.model_sizes else args.model_sizes


def _load() -> float:
    return os.getloadavg()[0]


def run(args: argparse.Namespace) -> dict[str, Any]:
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "worker.log"
    log.write_text("", encoding="utf-8")
    started = time.perf_counter()
    loads = [_load()]
    speeds = [host_speed()]  # the same fixed work before the first step and after each one
    runs: list[dict[str, Any]] = []
    scale: list[dict[str, Any]] = []
    profiles: list[dict[str, Any]] = []
    result = {"when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "cpus": os.cpu_count(),
              "load_average_1m": loads, "suite_s": 0.0, "args": {k: str(v) for k, v in vars(args).items()},
              "host_speed": speeds, "runs": runs, "vector_scale": scale, "profiles": profiles}

    def save() -> None:  # after every step, so an interrupted run still has its results
        loads.append(_load())
        speeds.append(host_speed())
        result["suite_s"] = time.perf_counter() - started
        (args.out / "partial.json").write_text(json.dumps(result, indent=1), encoding="utf-8")

    for embedder in args.embedders:
        for size in _sizes(args, embedder):
            print(f"… {embedder}: {size} notes", flush=True)
            light = ["--light"] if args.light and embedder != "hashing" else []
            runs.append({"notes": size, **_worker(["--notes", str(size), "--embedder", embedder, "--queries", str(args.queries), *light], log)})
            save()
    for rows in args.vector_scale:
        print(f"… vector scale: {rows} chunks", flush=True)
        scale.append(_scale(rows, "minilm" if "minilm" in args.embedders else args.embedders[0], args.queries, log))
        save()
    if args.profile:
        for embedder in args.embedders:
            size = args.profile_notes or max(_sizes(args, embedder), default=1000)
            print(f"… profile: {embedder}, {size} notes", flush=True)
            profiles.append({"embedder": embedder, "notes": size, **_worker(["--notes", str(size), "--embedder", embedder, "--profile"], log)})
            save()
    return result


def merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Several saved results as one: runs, scales and profiles together, loads and times added up."""
    merged = dict(results[0])
    for key in ("runs", "vector_scale", "profiles", "load_average_1m", "host_speed"):
        merged[key] = [item for result in results for item in result.get(key, [])]
    merged["suite_s"] = sum(result["suite_s"] for result in results)
    return merged


def render(result: dict[str, Any]) -> str:
    runs, scale = result["runs"], result["vector_scale"]
    exponents = report.growth(runs)
    result["growth"] = exponents
    result["targets"] = targets.judge(runs, scale)
    parts = [*report.ingest_tables(runs), *report.recall_tables(runs, scale), *report.sleep_table(runs),
             *report.growth_table(exponents), *targets.targets_table(result["targets"])]
    for profile in result["profiles"]:
        parts.extend(report.profile_tables(profile))
    loads = result["load_average_1m"]
    parts.append(f"\n{result['cpus']} cores; 1-minute load average during the run: {min(loads):.1f} to {max(loads):.1f}; "
                 f"suite took {result['suite_s'] / 60:.1f} min")
    speed = speed_line(result.get("host_speed", []))  # absent from runs saved before it was read
    if speed:
        parts.append(speed)
    return "\n".join(parts)


def main() -> None:
    args = _options()
    if args.render:
        print(render(merge([json.loads(path.read_text(encoding="utf-8")) for path in args.render])))
        return
    result = run(args)
    text = render(result)
    print(text)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    for name in (f"bench-{stamp}.json", "latest.json"):
        (args.out / name).write_text(json.dumps(result, indent=1), encoding="utf-8")
    (args.out / "latest.md").write_text(text + "\n", encoding="utf-8")
    print(f"\nresults: {args.out / 'latest.json'} (and latest.md)")


if __name__ == "__main__":
    main()
