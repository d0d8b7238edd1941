"""The issue's performance targets, judged from one suite run (largest measured size)."""

from typing import Any

from benchmarks.report import get_path, table


def _measured(value: float | None) -> float | str:
    return "-" if value is None else round(value, 4)


def _verdict(value: float | None, limit: float) -> str:
    if value is None:
        return "not measured"
    return "met" if value <= limit else "missed"


def _floor(share: float | None) -> str:
    return "" if share is None else f"the job with nothing to consolidate: {share:.3f}"


def judge(runs: list[dict[str, Any]], scale: list[dict[str, Any]], embedder: str = "minilm-l6-v2") -> list[list[Any]]:
    """[target, limit, measured, at, verdict] rows for the default embedder's largest vault."""
    mine = sorted((r for r in runs if r["embedder"] == embedder), key=lambda r: r["notes"])
    if not mine:
        return []
    big = mine[-1]
    at = f"{big['notes']} notes"
    rows: list[list[Any]] = []

    def add(name: str, limit: float, value: float | None, where: str = at, note: str = "") -> None:
        rows.append([name, limit, _measured(value), where, _verdict(value, limit) + (f" ({note})" if note else "")])

    add("pipeline / raw encode", 1.25, big["ratio_pipeline_raw"])
    add("pipeline / raw encode, CPU time", 1.25, big["cpu_ratio_pipeline_raw"])
    add("one changed note / full ingest", 0.02, get_path(big, "incremental", "one_changed", "fraction_of_full"))
    add("one changed note / full ingest, CPU time", 0.02, get_path(big, "incremental", "one_changed", "cpu_fraction_of_full"))
    add("one changed note / full ingest, launched job", 0.02, get_path(big, "launched", "ingest", "job_fraction_of_full"),
        at, "" if "launched" in big else "not run")
    full = big.get("recall_eager_full", {})
    add("eager recall p95 ms (MemoryClient.recall)", 50, full.get("p95_ms"), at, "" if "p95_ms" in full else "not run")
    add("eager search p95 ms (vector + full-text only)", 50, big["recall_eager"]["p95_ms"])
    largest = max(scale, key=lambda s: s["rows"]) if scale else None
    at_million = largest if largest and largest["rows"] >= 1_000_000 else None
    scale_at = f"{largest['rows']} chunks" if largest else "-"
    scale_note = "" if at_million or not largest else f"largest run: {largest['rows']} chunks"
    for process, where in (("", ()), (", fresh process", ("served",))):
        add(f"eager recall p95 ms at 1M chunks (whole call, no graph{process})", 150,
            get_path(at_million or {}, *where, "eager_full", "p95_ms"), scale_at, scale_note)
        add(f"eager search p95 ms at 1M chunks{process}", 150, get_path(at_million or {}, *where, "eager", "p95_ms"), scale_at, scale_note)
    deliberate = big.get("recall_deliberate", {"status": "not run (light)"})
    add("deliberate recall p95 ms", 300, deliberate.get("p95_ms"), at, "" if "p95_ms" in deliberate else deliberate["status"])
    sleep = big.get("sleep", {"status": "not run (light)"})
    add("consolidation s", 300, sleep.get("full_s"), at, "" if "full_s" in sleep else sleep["status"])
    rerun = sleep["after_change_s"] / sleep["full_s"] if sleep.get("full_s") and sleep.get("after_change_s") else None
    floor, floor_launched = get_path(big, "sleep_floor", "fraction_of_full"), get_path(big, "sleep_floor", "launched", "job_fraction_of_full")
    add("consolidation re-run / full", 0.05, rerun, at, sleep["status"] if rerun is None else _floor(floor))
    add("consolidation re-run / full, launched job", 0.05, get_path(big, "launched", "sleep", "job_fraction_of_full"),
        at, _floor(floor_launched) if get_path(big, "launched", "sleep") else "not run")
    add("peak RSS GiB", 4, big["ingest"]["peak_rss_mib"] / 1024)
    add("mnemo ingest / plain-RAG ingest", 1.3, big["ingest"]["wall_s"] / big["baseline"]["ingest_s"])
    add("mnemo ingest / plain-RAG ingest, CPU time", 1.3, big["ingest"]["cpu_s"] / big["baseline"]["cpu_s"])
    rows.extend(_larger_without_model(runs, big["notes"]))
    return rows


def _larger_without_model(runs: list[dict[str, Any]], notes: int) -> list[list[Any]]:
    """Targets that do not depend on the embedder, at a larger size the hashing embedder reached."""
    larger = [r for r in runs if r["embedder"].startswith("hashing") and r["notes"] > notes and "sleep" in r]
    if not larger:
        return []
    big = max(larger, key=lambda r: r["notes"])
    sleep, where = big["sleep"], f"{big['notes']} notes, {big['embedder']}"
    rows: list[list[Any]] = []
    for name, limit, value, note in (
        ("consolidation s", 300, sleep.get("full_s"), ""),
        ("consolidation re-run / full", 0.05, sleep["after_change_s"] / sleep["full_s"] if sleep.get("after_change_s") and sleep.get("full_s") else None,
         _floor(get_path(big, "sleep_floor", "fraction_of_full"))),
        ("deliberate recall p95 ms (hashing query embedding)", 300, big["recall_deliberate"].get("p95_ms"), ""),
        ("peak RSS GiB (no model loaded)", 4, big["ingest"]["peak_rss_mib"] / 1024, ""),
    ):
        rows.append([name, limit, _measured(value), where, _verdict(value, limit) + (f" ({note})" if note else "")])
    return rows


def targets_table(rows: list[list[Any]]) -> list[str]:
    """The judged rows as a table; shares of a full run (limits below 1) as percentages with two
    decimals, so a share just over its limit does not print as the limit itself."""
    shown = [[name, *(_percent(v) if limit < 1 else v for v in (limit, value)), where, verdict]
             for name, limit, value, where, verdict in rows]
    return [table("Targets (default embedder, largest size of this run)", ["target", "limit", "measured", "at", "verdict"], shown)]


def _percent(share: Any) -> Any:
    return f"{share * 100:.2f} %" if isinstance(share, float) else share
