"""Measurements of mnemo's ingest, each a function over the public pipeline and Dagster job.

Every timing here runs the real thing: the `ingest_job` of `definitions.py` executed in
process (per-asset times come from Dagster's own step events), the stores it writes, and
the embedder the configuration names.
"""

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
import yaml

from mnemo.config import load_config
from mnemo.ingest.pipeline import chunk_rows, entity_rows
from mnemo.sleep.merges import canonical_facts
from mnemo.sources.scan import PARSERS
from mnemo.stores.embedders import Embedder, build_embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.vector_rows import embedding_windows
from mnemo.stores.vectors import EMBED_BATCH, TEXT_COLUMN
from mnemo_dagster.definitions import build_defs
from mnemo_dagster.resources import default_resources

NAMESPACE = "bench"
ROOT = Path(__file__).resolve().parent.parent
CHAT_KINDS = ("jsonl", "chatgpt", "claude")


def peak_rss_mib() -> float:
    """This process's peak resident set size so far, in MiB: the kernel's high-water mark of its
    memory (`VmHWM`). `ru_maxrss` is not used where that can be read: Linux carries it over from
    the parent through fork and exec, so a fresh process started by a large one reported the
    parent's peak."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def chat_kind() -> str | None:
    """The chat export format the scanner can read, if any has landed."""
    return next((k for k in CHAT_KINDS if k in PARSERS), None)


def write_config(work: Path, vault: Path, embedder: str, chats: Path | None = None) -> Path:
    """A mnemo.yaml for one namespace reading the synthetic vault (and chats when supported)."""
    sources: list[dict[str, str]] = [{"kind": "obsidian", "path": str(vault)}]
    kind = chat_kind()
    if chats is not None and kind is not None:
        sources.append({"kind": kind, "path": str(chats)})
    config = {"data_dir": str(work / "data"), "embedder": {"kind": embedder}, "namespaces": {NAMESPACE: {"sources": sources}}}
    path = work / "mnemo.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@dataclass
class JobRun:
    wall: float
    cpu: float
    assets: dict[str, float]
    metadata: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def orchestration(self) -> float:
        """Time Dagster spent around the steps (planning, events, resources)."""
        return max(0.0, self.wall - sum(self.assets.values()))


def step_times(instance: dg.DagsterInstance, run_id: str) -> dict[str, float]:
    started: dict[str, float] = {}
    times: dict[str, float] = {}
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is None or event.step_key is None:
            continue
        if event.event_type_value == "STEP_START":
            started[event.step_key] = entry.timestamp
        elif event.event_type_value == "STEP_SUCCESS" and event.step_key in started:
            times[event.step_key] = entry.timestamp - started[event.step_key]
    return times


def _metadata(result: dg.ExecuteInProcessResult) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for event in result.get_asset_materialization_events():
        materialization = event.step_materialization_data.materialization
        values = {k: v.value for k, v in materialization.metadata.items() if isinstance(v.value, int | float | str)}
        out[materialization.asset_key.to_user_string()] = {k: v for k, v in values.items() if len(str(v)) < 80}
    return out


class IngestRunner:
    """Runs the real ingest job for the bench namespace, keeping one Dagster instance."""

    def __init__(self, config_path: Path) -> None:
        self.config_path = config_path
        self.instance = dg.DagsterInstance.ephemeral()
        self.instance.add_dynamic_partitions("namespace", [NAMESPACE])
        self.defs = build_defs(default_resources(str(config_path)))

    def run(self) -> JobRun:
        job = self.defs.resolve_job_def("ingest_job")
        (wall, cpu), result = timed(lambda: job.execute_in_process(partition_key=NAMESPACE, instance=self.instance))
        if not result.success:
            raise RuntimeError("the ingest job failed; see the Dagster output above")
        return JobRun(wall, cpu, step_times(self.instance, result.run_id), _metadata(result))

    @property
    def files(self) -> NamespaceFiles:
        return NamespaceFiles(load_config(self.config_path).data_dir, NAMESPACE)

    def embedder(self) -> Embedder:
        return build_embedder(load_config(self.config_path).embedder)


def warm(embedder: Embedder) -> None:
    """Load the embedder's model(s) and encode once, outside any timing."""
    load = getattr(embedder, "load", None)
    if load is not None:
        load()
    embedder.encode(["warm up the model"])


def timed(fn: Callable[[], Any]) -> tuple[tuple[float, float], Any]:
    """((wall seconds, CPU seconds of this process, all threads), value). CPU time barely
    moves when other work shares the machine, so ratios of it are the steadier ones."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return (time.perf_counter() - wall, time.process_time() - cpu), value


def embedded_rows(files: NamespaceFiles) -> list[list[dict[str, Any]]]:
    """Every row a first ingest embeds, per table: the chunks' and the entities'."""
    return [chunk_rows(files.read_chunks()), entity_rows(canonical_facts(files))]


def full_ingest(runner: IngestRunner) -> dict[str, Any]:
    """A first ingest into empty stores, its per-asset times, throughput and peak RSS."""
    run = runner.run()
    files = runner.files
    notes = len(files.read_documents())
    chunks = len(files.read_chunks())
    return {
        "wall_s": run.wall, "cpu_s": run.cpu, "assets_s": run.assets, "orchestration_s": run.orchestration,
        "notes": notes, "chunks": chunks, "notes_per_s": notes / run.wall, "chunks_per_s": chunks / run.wall,
        "peak_rss_mib": peak_rss_mib(), "metadata": run.metadata,
    }


def raw_encode(runner: IngestRunner, embedder: Embedder) -> dict[str, Any]:
    """The physical limit: exactly the `encode` calls the vector sync makes on a first ingest
    (same texts, same batches, same order), and nothing else."""
    calls = [[part[i][TEXT_COLUMN] for i in call] for rows in embedded_rows(runner.files)
             for part, order in embedding_windows(rows, EMBED_BATCH) for call in order]
    (seconds, cpu), _ = timed(lambda: [embedder.encode(texts) for texts in calls])
    texts = sum(len(c) for c in calls)
    return {"texts": texts, "calls": len(calls), "encode_s": seconds, "cpu_s": cpu, "texts_per_s": texts / seconds if seconds else 0.0}


def launched(work: Path, config: Path, job: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """`job` run in a fresh process (benchmarks/launched.py), as Dagster's run launcher runs it:
    what that process printed, and `wall_s` from starting it to its exit. `env` is added to the
    process's environment."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "benchmarks.launched", str(config), job, str(work / "launched-instance")],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, **(env or {})})
    wall = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"the launched {job} exited with {done.returncode}:\n{done.stderr[-3000:]}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "wall_s": wall}


def launched_change(runner: IngestRunner, work: Path, vault: Path, paths: list[str], full: dict[str, Any],
                    sleep: dict[str, Any]) -> dict[str, Any]:
    """One more changed note, ingested by a run launched in a fresh process, then (when `sleep`, the
    sleep-mode figures, has a full run's) a launched consolidation; each as a fraction of the full
    ingest (`full`) / consolidation.
    `CHANGED_SAMPLES` times, a different note each time (one launch moves with the machine's file
    caches by a factor of two): the median run of each job, with every sample's job seconds."""
    middle = len(paths) // 2
    notes = [middle + 1, *(middle + 1 + CHANGED_SAMPLES + k for k in range(CHANGED_SAMPLES - 1))]  # none `incremental` changes
    runs: dict[str, list[dict[str, Any]]] = {"ingest": [], "sleep": []}
    for i in notes:
        _edit(vault / paths[i], "\n\nAnother thought about the garden, in a launched run.\n")
        runs["ingest"].append(_launched_share(work, runner.config_path, "ingest_job", full["wall_s"], full.get("cpu_s")))
        if sleep.get("full_s"):
            runs["sleep"].append(_launched_share(work, runner.config_path, "sleep_mode_job", sleep["full_s"], sleep.get("full_cpu_s")))
    return {job: median_sample(samples, "job_s") for job, samples in runs.items() if samples}


def _launched_share(work: Path, config: Path, job: str, full_s: float, full_cpu_s: float | None = None) -> dict[str, Any]:
    """A launched run's times as shares of the full run's: wall, and CPU when the full run's is known
    (CPU time moves less with whatever else the machine runs)."""
    run = launched(work, config, job)
    shares = {"job_fraction_of_full": run["job_s"] / full_s, "wall_fraction_of_full": run["wall_s"] / full_s}
    if full_cpu_s:
        shares["job_cpu_fraction_of_full"] = run["job_cpu_s"] / full_cpu_s
    return {**run, **shares}


def _edit(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def change_one(vault: Path, paths: list[str], index: int | None = None) -> None:
    """The suite's one changed note: a line added to the note at `index` of `paths` (by default the
    middle one, the first the incremental re-runs change)."""
    _edit(vault / paths[len(paths) // 2 if index is None else index], "\n\nA new thought about the garden and the budget.\n")


CHANGED_SAMPLES = 3  # the re-run after one changed note is timed this many times (a different note each time)


def incremental(runner: IngestRunner, vault: Path, paths: list[str], full: dict[str, Any],
                then: Callable[[str], None] = lambda change: None) -> dict[str, Any]:
    """Re-runs after no change, one changed note (`CHANGED_SAMPLES` times, a different note each
    time: the median is reported, with every sample), one added note, one deleted note; `then(change)`
    runs after each re-run (outside its timing)."""
    middle = len(paths) // 2
    changed = [middle, *(middle + 2 + k for k in range(CHANGED_SAMPLES - 1))]  # middle + 1 is the launched run's note
    steps: list[tuple[str, Callable[[], object]]] = [
        ("unchanged", lambda: None),
        *(("one_changed", lambda i=i: change_one(vault, paths, i)) for i in changed),
        ("one_added", lambda: (vault / "Notes" / "Bench added note.md").write_text("# Added\n\nA note written just now.\n", encoding="utf-8")),
        ("one_deleted", lambda: (vault / paths[len(paths) // 3]).unlink()),
    ]
    samples: dict[str, list[dict[str, Any]]] = {}
    for name, change in steps:
        change()
        run = runner.run()
        samples.setdefault(name, []).append({
            "wall_s": run.wall, "fraction_of_full": run.wall / full["wall_s"], "cpu_s": run.cpu,
            "cpu_fraction_of_full": run.cpu / full["cpu_s"], "assets_s": run.assets, "orchestration_s": run.orchestration})
        then(name)
    return {name: median_sample(runs, "wall_s") for name, runs in samples.items()}


def median_sample(runs: list[dict[str, Any]], key: str, samples: str = "samples_s") -> dict[str, Any]:
    """The run with the median `key` (the lower middle one of an even count), and with more than one
    run every run's `key` in the order measured (under `samples`)."""
    middle = sorted(runs, key=lambda r: r[key])[(len(runs) - 1) // 2]
    return {**middle, samples: [r[key] for r in runs]} if len(runs) > 1 else middle
