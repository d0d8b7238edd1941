"""One size, one embedder, one fresh process: generate, ingest, measure, print JSON.

A fresh process per size keeps peak RSS per size honest and the runs independent.
Usage: .venv/bin/python -m benchmarks.worker WORK --notes N --json OUT [--embedder minilm] [--profile]
"""

import argparse
import json
import os
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks import baseline, measure, profiling, recall_bench, sleep_bench  # noqa: E402
from benchmarks.synth import generate  # noqa: E402
from mnemo.stores.vectors import VectorStore  # noqa: E402


def measure_size(work: Path, notes: int, embedder_kind: str, query_count: int, seed: int, light: bool = False) -> dict[str, Any]:
    """Every section at one size; `light`: only ingest, raw encode, the peer and eager recall."""
    vault = generate(work / "src", notes, seed)
    runner = measure.IngestRunner(measure.write_config(work, vault.root, embedder_kind, work / "src" / "chats"))
    embedder = runner.embedder()
    (load_s, _), _ = measure.timed(lambda: measure.warm(embedder))
    out: dict[str, Any] = {"notes_generated": vault.notes, "chats_generated": vault.chats, "messages_generated": vault.messages,
                           "chat_source": measure.chat_kind() or "not available yet", "embedder": embedder.name, "model_load_s": load_s}
    out["ingest"] = measure.full_ingest(runner)
    out["raw"] = measure.raw_encode(runner, embedder)
    out["ratio_pipeline_raw"] = out["ingest"]["wall_s"] / out["raw"]["encode_s"]
    out["cpu_ratio_pipeline_raw"] = out["ingest"]["cpu_s"] / out["raw"]["cpu_s"]
    questions = recall_bench.queries(vault.entities, query_count)
    store = VectorStore(runner.files.vectors_path)
    out["recall_eager"] = recall_bench.latency(recall_bench.eager(store, embedder), questions)  # search alone
    out["recall_eager_full"] = recall_bench.client_recall(runner.config_path, measure.NAMESPACE, questions, "eager")
    (plain_s, plain_cpu), plain = measure.timed(lambda: baseline.ingest(vault.root, work / "plain", embedder, chats=work / "src" / "chats"))
    out["baseline"] = {"ingest_s": plain_s, "cpu_s": plain_cpu, **plain, "recall": recall_bench.latency(baseline.recall(work / "plain", embedder), questions)}
    if light:
        return out
    out["recall_deliberate"] = recall_bench.deliberate(runner.config_path, measure.NAMESPACE, questions)
    out["sleep"] = sleep_bench.first_run(runner)
    out["sleep"].update(sleep_bench.unchanged(runner))

    after_change: list[dict[str, Any]] = []

    def consolidate_after(change: str) -> None:  # sleep mode again, right after each changed note
        if change == "one_changed":
            after_change.append(sleep_bench.after_change(runner))

    out["incremental"] = measure.incremental(runner, vault.root, vault.paths, out["ingest"], consolidate_after)
    if after_change:
        out["sleep"].update(measure.median_sample(after_change, "after_change_s", "after_change_samples_s"))
    out["launched"] = measure.launched_change(runner, work, vault.root, vault.paths, out["ingest"], out["sleep"])
    out["sleep_floor"] = sleep_bench.floor(runner, work, out["sleep"])
    return out


def _profiled(work: Path, name: str, fn: Any, top: int) -> tuple[Any, dict[str, Any]]:
    """fn() under pyinstrument: its value, and the profile's text report and top frames."""
    from pyinstrument import Profiler

    profiler = Profiler(interval=0.005)
    profiler.start()
    value = fn()
    profiler.stop()
    (work / f"{name}.html").write_text(profiler.output_html(), encoding="utf-8")
    return value, {"report": profiler.output_text(unicode=False, color=False, show_all=False),
                   "top": profiling.top_frames(profiler, top), "libraries": profiling.by_library(profiler)}


def profile_size(work: Path, notes: int, embedder_kind: str, seed: int, top: int) -> dict[str, Any]:
    """pyinstrument profiles of one full ingest, of the consolidation after it, and of the
    consolidation again after one changed note (the note the suite changes first, re-ingested
    outside the profile)."""
    vault = generate(work / "src", notes, seed)
    runner = measure.IngestRunner(measure.write_config(work, vault.root, embedder_kind, work / "src" / "chats"))
    measure.warm(runner.embedder())
    run, ingest = _profiled(work, "ingest", runner.run, top)
    out = {"wall_s": run.wall, "assets_s": run.assets, **ingest}
    if sleep_bench.sleep_job_name(runner):
        sleep, profile = _profiled(work, "sleep", lambda: sleep_bench.first_run(runner), top)
        out["sleep"] = {**sleep, **profile}
        measure.change_one(vault.root, vault.paths)
        runner.run()
        again, profile = _profiled(work, "sleep-again", lambda: sleep_bench.after_change(runner), top)
        out["sleep_again"] = {**again, **profile}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--notes", type=int, required=True)
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="profile one full ingest and the consolidations after it instead of measuring")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--light", action="store_true", help="only ingest, raw encode, the plain-RAG peer and eager recall")
    parser.add_argument("--json", type=Path, required=True, help="where to write the result")
    args = parser.parse_args()
    if args.profile:
        result = profile_size(args.work, args.notes, args.embedder, args.seed, args.top)
    else:
        result = measure_size(args.work, args.notes, args.embedder, args.queries, args.seed, args.light)
    args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
