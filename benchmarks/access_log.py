"""What a long access log costs salience, read whole and read from its fold.

On a copy of an ingested and consolidated namespace (its facts and sleep files), for each size
the access log gets that many synthetic accesses (seeded: items drawn from the namespace's chunks
and entities, stamped over the past year) on top of its own; then a few nights follow, each
appending `--per-night` fresh accesses, and each night's salience build is timed twice from the
same state: with last night's fold (`mnemo.sleep.accesses`, what a sleep run does) and without
it (the whole log replayed). Both give the same rows; the table shows the seconds and the fold's
size. Prints a table and, with --json, writes it.

Usage: .venv/bin/python -m benchmarks.access_log CONFIG [--sizes 0,50000,270000] [--nights 3]
       [--per-night 750] [--namespace bench] [--json OUT]
CONFIG: the mnemo.yaml of a consolidated store, e.g. the suite's work folder after its run.
"""

import argparse
import json
import random
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from benchmarks.measure import NAMESPACE
from mnemo.config import SleepConfig, load_config
from mnemo.runtime import collections_paused
from mnemo.sleep.merges import merged_sleep_facts
from mnemo.sleep.salience import build_salience
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.view import FactsView
from mnemo.stores.files import NamespaceFiles


def _accesses(items: list[str], count: int, newest: datetime, span: timedelta, rnd: random.Random) -> bytes:
    seconds = int(span.total_seconds())
    return b"".join(orjson.dumps({"id": rnd.choice(items), "kind": "recall",
                                  "at": (newest - timedelta(seconds=rnd.randrange(seconds))).isoformat(timespec="seconds")}) + b"\n"
                    for _ in range(count))


def measure(config: Path, sizes: list[int], nights: int, per_night: int, namespace: str = NAMESPACE) -> list[dict[str, Any]]:
    """One row per size; stops with an error if the folded and whole-log builds ever differ."""
    source = NamespaceFiles(load_config(config).data_dir, namespace)
    results = []
    with tempfile.TemporaryDirectory() as tmp, collections_paused():
        files = NamespaceFiles(Path(tmp), namespace)
        for part in ("facts", "llm_facts", "sleep"):
            if (source.root / part).exists():
                shutil.copytree(source.root / part, files.root / part)
        sleep = SleepFiles(files.root)
        log, own = sleep.access_log, sleep.access_log.read_bytes() if sleep.access_log.exists() else b""
        view = FactsView(merged_sleep_facts(files))
        state = sleep.read_state("salience")
        items = sorted(view.chunks)[:4000] + sorted(view.entities)
        start = datetime.now(UTC)
        for size in sizes:
            rnd = random.Random(size)
            log.write_bytes(own + _accesses(items, size, start, timedelta(days=365), rnd))
            settings, ranks = SleepConfig(), state.get("ranks", {})
            previous, seen, _, due, fold = build_salience(view, sleep, settings, start, state.get("first_seen", {}), ranks,
                                                          sleep.read_overlay("salience"))
            folded, whole = [], []
            for night in range(1, nights + 1):  # as consecutive sleep runs: each starts from the last one's results
                now = start + timedelta(days=night)
                with log.open("ab") as handle:
                    handle.write(_accesses(items, per_night, now, timedelta(hours=20), rnd))
                began = time.perf_counter()
                result = build_salience(view, sleep, settings, now, seen, ranks, previous, due, fold)
                folded.append(time.perf_counter() - began)
                began = time.perf_counter()
                again = build_salience(view, sleep, settings, now, seen, ranks, previous, due)
                whole.append(time.perf_counter() - began)
                if result[0].to_json() != again[0].to_json() or result[1:] != again[1:]:
                    raise SystemExit(f"the folded and the whole-log salience differ at {size} accesses, night {night}")
                previous, seen, _, due, fold = result
            results.append({"logged": size + len(own.splitlines()), "per_night": per_night, "nights": nights,
                            "folded_s": round(statistics.median(folded), 3), "whole_s": round(statistics.median(whole), 3),
                            "fold_kib": len(orjson.dumps(fold)) // 1024, "log_mib": round(log.stat().st_size / 2**20, 1)})
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--sizes", default="0,50000,270000")
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--per-night", type=int, default=750)
    parser.add_argument("--namespace", default=NAMESPACE)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = measure(args.config, [int(s) for s in args.sizes.split(",")], args.nights, args.per_night, args.namespace)
    print(f"{'logged accesses':>16} {'log MiB':>8} {'whole log s':>12} {'folded s':>9} {'fold KiB':>9}")
    for row in rows:
        print(f"{row['logged']:>16,} {row['log_mib']:>8} {row['whole_s']:>12} {row['folded_s']:>9} {row['fold_kib']:>9}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
