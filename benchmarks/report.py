"""Tables, growth exponents and target verdicts from the suite's results."""

import math
from typing import Any

import numpy as np

GIB = 1024


def growth_exponent(sizes: list[int], seconds: list[float]) -> float | None:
    """b in time ≈ a · size^b, fitted on log-log; None with fewer than two sizes."""
    points = [(s, t) for s, t in zip(sizes, seconds) if s > 0 and t and t > 0]
    if len(points) < 2:
        return None
    slope, _ = np.polyfit([math.log(s) for s, _ in points], [math.log(t) for _, t in points], 1)
    return float(slope)


def table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = ["| " + " | ".join(c.rjust(w) for c, w in zip(r, widths)) + " |" for r in cells]
    return "\n".join([f"\n### {title}\n", line, rule, *body])


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return str(value)


def _samples(seconds: list[float] | None) -> str:
    return ", ".join(f"{s:.2f}" for s in seconds) if seconds else ""


def get_path(data: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def ingest_tables(runs: list[dict[str, Any]]) -> list[str]:
    rows, assets, increments, launches = [], [], [], []
    for r in runs:
        ing = r["ingest"]
        base = r["baseline"]
        rows.append([r["embedder"], r["notes"], ing["chunks"], ing["wall_s"], ing["notes_per_s"], ing["chunks_per_s"],
                     ing["peak_rss_mib"], r["raw"]["encode_s"], r["ratio_pipeline_raw"], base["ingest_s"],
                     ing["wall_s"] / base["ingest_s"], ing["cpu_s"], r["cpu_ratio_pipeline_raw"], ing["cpu_s"] / base["cpu_s"]])
        for name, seconds in ing["assets_s"].items():
            assets.append([r["embedder"], r["notes"], name, seconds, seconds / ing["wall_s"]])
        assets.append([r["embedder"], r["notes"], "(dagster orchestration)", ing["orchestration_s"], ing["orchestration_s"] / ing["wall_s"]])
        for name, inc in r.get("incremental", {}).items():
            increments.append([r["embedder"], r["notes"], name, inc["wall_s"], inc["fraction_of_full"], inc["cpu_s"], inc["cpu_fraction_of_full"],
                               _samples(inc.get("samples_s"))])
        for job, run in r.get("launched", {}).items():
            launches.append([r["embedder"], r["notes"], job, run["import_s"], run["job_s"], run["job_fraction_of_full"],
                             run.get("job_cpu_s", ""), run.get("job_cpu_fraction_of_full", ""),
                             run["wall_s"], run["wall_fraction_of_full"], _samples(run.get("samples_s"))])
    return [
        table("1-2, 6. Full ingest, raw encode and the plain-RAG peer",
              ["embedder", "notes", "chunks", "ingest s", "notes/s", "chunks/s", "peak RSS MiB", "raw encode s",
               "pipeline/raw", "plain-RAG s", "mnemo/plain", "CPU s", "CPU pipeline/raw", "CPU mnemo/plain"], rows),
        table("1. Time per asset (first ingest)", ["embedder", "notes", "asset / check", "s", "share"], assets),
        table("3. Incremental re-runs (with several samples: the median one)",
              ["embedder", "notes", "change", "s", "of full", "CPU s", "CPU of full", "samples s"], increments),
        table("3, 5. One more changed note, each job launched in a fresh process (as the run launcher does; the median of the samples)",
              ["embedder", "notes", "job", "import s", "job s", "job of full", "job CPU s", "job CPU of full", "process s", "process of full",
               "samples job s"], launches),
    ]


def recall_tables(runs: list[dict[str, Any]], scale: list[dict[str, Any]]) -> list[str]:
    rows = []
    for r in runs:
        for mode, data in (("eager", r.get("recall_eager_full", {"status": "not run"})), ("eager search only", r["recall_eager"]), ("deliberate", r.get("recall_deliberate", {"status": "not run (light)"})), ("plain-RAG", r["baseline"]["recall"])):
            if "p50_ms" in data:
                rows.append([r["embedder"], f"{r['notes']} notes", mode, data["p50_ms"], data["p95_ms"], data["p99_ms"], data["n"]])
            else:
                rows.append([r["embedder"], f"{r['notes']} notes", mode, data.get("status", "-"), "", "", ""])
    ann = []
    for s in scale:
        for mode, e in (("eager, exact search", s.get("exact")), (f"eager, {s.get('index_kind', 'exact')} index", s["eager"]),
                        ("eager whole call (no graph)", s.get("eager_full")),
                        ("eager, index, fresh process", get_path(s, "served", "eager")),
                        ("eager whole call, fresh process", get_path(s, "served", "eager_full"))):
            if e:
                rows.append([s["embedder"], f"{s['rows']} chunks", mode, e["p50_ms"], e["p95_ms"], e["p99_ms"], e["n"]])
        for key, queries in (("ann", "noisy copies of stored vectors"), ("ann_text", "the text queries, embedded")):
            if key in s:
                a = s[key]
                ann.append([s["rows"], s.get("index_kind", "-"), s.get("index_s", 0.0), queries, a["nprobes"], a["refine_factor"],
                            f"{a.get('recall_at_k', a.get('recall_at_10')):.3f} @{a.get('k', 10)}", a["p50_ms"], a["p95_ms"]])
    tables = [table("4, 6. Recall latency (ms)", ["embedder", "scale", "mode", "p50", "p95", "p99", "n"], rows)]
    if ann:
        tables.append(table("4. ANN index at vector scale: vector search alone against exact (numpy) search",
                            ["chunks", "index", "build s", "queries", "nprobes", "refine", "recall@k", "p50 ms", "p95 ms"], ann))
    return tables


PHASE_NAMES = {"read": "reading the facts", "view": "indexing them", "graph": "graph sync", "checks": "asset checks",
               "rest": "rest of the job (Dagster, metadata, closing the graph)"}


def sleep_table(runs: list[dict[str, Any]]) -> list[str]:
    rows, phases, floors, assets = [], [], [], []
    for r in runs:
        sleep = r.get("sleep", {"status": "not run (light)"})
        full, again, idle = sleep.get("full_s"), sleep.get("after_change_s"), sleep.get("unchanged_s")
        rows.append([r["embedder"], r["notes"], sleep.get("status"), full or "", sleep.get("full_cpu_s", ""), idle or "",
                     idle / full if full and idle else "", again or "", sleep.get("after_change_cpu_s", ""),
                     again / full if full and again else "", _samples(sleep.get("after_change_samples_s"))])
        floor = r.get("sleep_floor") or {}
        by_phase = [sleep.get(f"{run}_phases_s", {}) for run in ("full", "unchanged", "after_change")] + [floor.get("phases_s", {})]
        for phase in dict.fromkeys(p for seconds in by_phase for p in seconds):
            full_phase, idle_phase, again_phase, floor_phase = (seconds.get(phase, "") for seconds in by_phase)
            phases.append([r["embedder"], r["notes"], PHASE_NAMES.get(phase, phase), full_phase, idle_phase, again_phase,
                           again_phase / full if full and again_phase != "" else "", floor_phase])
        if floor:
            out = floor["launched"]
            floors.append([r["embedder"], r["notes"], floor["s"], floor["fraction_of_full"], _samples(floor.get("samples_s")),
                           out["job_s"], out["job_fraction_of_full"], out["import_s"], _samples(out.get("samples_s"))])
        if not any(by_phase):  # results saved before the job reported its phases
            for name, seconds in sleep.get("full_assets_s", {}).items():
                assets.append([r["embedder"], r["notes"], name, seconds, sleep.get("after_change_assets_s", {}).get(name, "")])
    tables = [table("5. Sleep-mode consolidation (again with nothing changed, then after each changed note was ingested: the median run)",
                    ["embedder", "notes", "status", "full s", "full CPU s", "unchanged s", "unchanged / full", "again s",
                     "again CPU s", "again / full", "again samples s"], rows)]
    if phases:
        tables.append(table("5. Consolidation time by phase (the runs above; again / full: the phase's share of the full run; "
                            "floor: the job with nothing to consolidate)",
                            ["embedder", "notes", "phase", "full s", "unchanged s", "again s", "again / full", "floor s"], phases))
    if floors:
        tables.append(table("5. The floor of a re-run: the sleep job with nothing to consolidate (a finished run's report stands "
                            "in for the consolidation; the median of the samples)",
                            ["embedder", "notes", "in process s", "/ full", "samples s", "launched job s", "/ full", "import s",
                             "launched samples s"], floors))
    if assets:
        tables.append(table("5. Consolidation time per asset", ["embedder", "notes", "asset / check", "full s", "again s"], assets))
    return tables


def growth(runs: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Fitted exponents per embedder for ingest, incremental, recall and consolidation."""
    out: dict[str, dict[str, float | None]] = {}
    for embedder in sorted({r["embedder"] for r in runs}):
        mine = sorted((r for r in runs if r["embedder"] == embedder), key=lambda r: r["notes"])
        sizes = [r["notes"] for r in mine]
        out[embedder] = {
            "ingest": growth_exponent(sizes, [r["ingest"]["wall_s"] for r in mine]),
            "ingest_cpu": growth_exponent(sizes, [r["ingest"]["cpu_s"] for r in mine]),
            "one_changed": growth_exponent(sizes, [get_path(r, "incremental", "one_changed", "wall_s") for r in mine]),
            "one_changed_cpu": growth_exponent(sizes, [get_path(r, "incremental", "one_changed", "cpu_s") for r in mine]),
            "recall_eager_p50": growth_exponent(sizes, [r["recall_eager"]["p50_ms"] for r in mine]),
            "plain_rag_ingest": growth_exponent(sizes, [r["baseline"]["ingest_s"] for r in mine]),
            "consolidation": growth_exponent(sizes, [get_path(r, "sleep", "full_s") for r in mine]),
            "consolidation_cpu": growth_exponent(sizes, [get_path(r, "sleep", "full_cpu_s") for r in mine]),
        }
    return out


def profile_tables(profile: dict[str, Any]) -> list[str]:
    """Top functions and packages of an ingest profile, of the consolidation profile after it, and
    of the consolidation again after one changed note."""
    parts = []
    for what, data, wall in (("ingest", profile, "wall_s"), ("consolidation", profile.get("sleep"), "full_s"),
                             ("consolidation after one changed note", profile.get("sleep_again"), "after_change_s")):
        if not data or "top" not in data:
            continue
        rows = [[p["function"][:90], p["self_s"], p["share"]] for p in data["top"]]
        took = f" ({data[wall]:.2f} s profiled)" if wall in data else ""
        parts.append(table(f"Profile, {what}, {profile['embedder']}, {profile['notes']} notes{took}: top functions by self time",
                           ["function", "self s", "share"], rows))
        libraries = [[name, seconds] for name, seconds in list(data["libraries"].items())[:12]]
        parts.append(table(f"Profile, {what}, {profile['embedder']}: self time by package", ["package", "self s"], libraries))
    return parts


def growth_table(exponents: dict[str, dict[str, float | None]]) -> list[str]:
    rows = [[e, *(("-" if v is None else round(v, 2)) for v in values.values())] for e, values in exponents.items()]
    header = ["embedder", *next(iter(exponents.values()), {}).keys()]
    return [table("7. Growth exponent b (time ≈ a·notes^b)", header, rows)]
