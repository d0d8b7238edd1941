"""The graph real vaults make, offline: per corpus, notes, entities, aliases, relations,
communities, modularity, and ingest and sleep time (the Dagster ingest and sleep-mode jobs,
in a fresh temporary workspace, with the default packaged MiniLM embedder).

Corpora are the shared real ones (obsidian-kepano, obsidian-ideaverse, logseq-docs); a corpus
that is absent is skipped. Prints a Markdown table and three communities per corpus, and writes
the whole result as JSON (default: benchmarks/results/real_graph-<date>.json).

Usage: .venv/bin/python -m benchmarks.real_graph [--corpora DIR] [--embedder minilm|hashing] [--json OUT]
"""

import argparse
import datetime as dt
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

import dagster as dg  # noqa: E402
import yaml  # noqa: E402

from mnemo.config import load_config  # noqa: E402
from mnemo.sleep.store import SleepFiles  # noqa: E402
from mnemo.stores.files import NamespaceFiles  # noqa: E402
from mnemo.stores.graph import GraphStore  # noqa: E402
from mnemo_dagster.definitions import build_defs  # noqa: E402
from mnemo_dagster.resources import default_resources  # noqa: E402
from ontology import load_ontology  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CORPORA = {"obsidian-kepano": "obsidian", "obsidian-ideaverse": "obsidian", "logseq-docs": "logseq"}
NAMESPACE = "real"
NOW = "2026-11-27T03:00:00+00:00"  # the sleep run's clock: a fixed time, so that reruns compare


def _run(config: Path, instance: dg.DagsterInstance, job: str, tags: dict[str, str] | None = None) -> float:
    """Seconds one job run takes on the namespace."""
    defs = build_defs(default_resources(str(config)))
    start = time.perf_counter()
    result = defs.resolve_job_def(job).execute_in_process(
        partition_key=NAMESPACE, instance=instance, tags=tags or {},
        run_config={"loggers": {"console": {"config": {"log_level": "ERROR"}}}},
    )
    if not result.success:
        raise SystemExit(f"the {job} run failed")
    return time.perf_counter() - start


def _declared_aliases(files: NamespaceFiles) -> tuple[int, int]:
    """(aliases the notes declare, how many of them the note's entity holds); journal pages are
    Days, not entities (a Logseq journal's file name is its only alias)."""
    graph = GraphStore(files.graph_path, load_ontology())
    held = {r["doc"]: set(r["aliases"] or []) | {r["name"]} for r in graph.query(
        "MATCH (n:Note)-[:PAGE_OF]->(e:Entity) RETURN n.id AS doc, e.name AS name, e.aliases AS aliases")}
    declared = [(d.id, a) for d in files.read_documents() if d.kind == "note" for a in d.aliases]
    return len(declared), sum(a in held.get(doc, set()) for doc, a in declared)


def _graph_counts(files: NamespaceFiles) -> dict[str, Any]:
    graph = GraphStore(files.graph_path, load_ontology())
    counts = graph.counts()
    relations = {r.table: counts.get(r.table, 0) for r in graph.ontology.relation_types.values()}
    communities = graph.query(
        "MATCH (c:Community) WHERE c.level = 0 RETURN c.title AS title, c.summary AS summary, c.member_count AS members "
        "ORDER BY members DESC, title")
    return {"entities": counts.get("Entity", 0), "aliases": counts.get("Alias", 0),
            "relations": sum(relations.values()), "refers_to": relations.get("REFERS_TO", 0),
            "communities": len(communities), "community_rows": communities}


def measure(corpus: Path, kind: str, embedder: str) -> dict[str, Any]:
    """Ingest and sleep one corpus in a fresh workspace; the figures of the graph it makes."""
    with tempfile.TemporaryDirectory(prefix="mnemo-real-") as tmp:
        work = Path(tmp)
        shutil.copytree(corpus, work / "source")
        config = work / "mnemo.yaml"
        config.write_text(yaml.safe_dump({
            "data_dir": str(work / "data"), "embedder": {"kind": embedder},
            "namespaces": {NAMESPACE: {"sources": [{"kind": kind, "path": str(work / "source")}]}},
        }), encoding="utf-8")
        instance = dg.DagsterInstance.ephemeral()
        instance.add_dynamic_partitions("namespace", [NAMESPACE])
        ingest_s = _run(config, instance, "ingest_job")
        sleep_s = _run(config, instance, "sleep_mode_job", {"mnemo/now": NOW})
        files = NamespaceFiles(load_config(config).data_dir, NAMESPACE)
        docs = files.read_documents()
        declared, held = _declared_aliases(files)
        state = SleepFiles(files.root).read_state("communities")
        return {
            "notes": sum(d.kind == "note" for d in docs), "journal_pages": sum(d.kind == "journal" for d in docs),
            "declared_aliases": declared, "declared_aliases_held": held, **_graph_counts(files),
            "modularity": state.get("modularity"), "ingest_s": round(ingest_s, 1), "sleep_s": round(sleep_s, 1),
        }


def table(results: dict[str, dict[str, Any]]) -> str:
    """The per-corpus figures as a Markdown table."""
    lines = ["| corpus | notes (+ journal pages) | entities | entities / notes | aliases (declared held) | relations "
             "(REFERS_TO) | communities | modularity | ingest s | sleep s |", "|" + "---|" * 10]
    for name, r in results.items():
        lines.append(
            f"| {name} | {r['notes']} (+{r['journal_pages']}) | {r['entities']} | {r['entities'] / max(1, r['notes']):.2f} "
            f"| {r['aliases']} ({r['declared_aliases_held']}/{r['declared_aliases']}) | {r['relations']} ({r['refers_to']}) "
            f"| {r['communities']} | {round(r['modularity'] or 0.0, 3)} | {r['ingest_s']} | {r['sleep_s']} |")
    return "\n".join(lines)


def communities(results: dict[str, dict[str, Any]], per_corpus: int = 3) -> str:
    """The largest communities of each corpus: title, size and summary."""
    lines = []
    for name, r in results.items():
        for row in r["community_rows"][:per_corpus]:
            lines.append(f"- {name}: **{row['title']}** ({row['members']} members): {row['summary']}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"])
    parser.add_argument("--json", type=Path, default=ROOT / "benchmarks" / "results" / f"real_graph-{dt.date.today().isoformat()}.json")
    args = parser.parse_args()
    results = {name: measure(args.corpora / name, kind, args.embedder)
               for name, kind in CORPORA.items() if (args.corpora / name).is_dir()}
    print(table(results))
    print()
    print(communities(results))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"date": dt.date.today().isoformat(), "embedder": args.embedder, "corpora": results},
                                    indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwritten to {args.json}")


if __name__ == "__main__":
    main()
