"""Time sleep mode on a vault: a first consolidation, a re-run with no change (at once, and the
next night), and, on a synthetic vault, a re-run after one note changed (how much work each step
does, graph writes included).

Usage: .venv/bin/python benchmarks/sleep_consolidation.py (PATH | --synthetic N | --synth N) [--kind obsidian|logseq]
--synthetic uses benchmarks/synthetic_vault.py (notes only), --synth benchmarks/synth.py (notes and
chat exports). Ingest runs offline first (hashing embedder), step by step without Dagster.
"""

import argparse
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import synth  # noqa: E402
from benchmarks.synthetic_vault import generate  # noqa: E402
from mnemo.config import parse_config  # noqa: E402
from mnemo.ingest.pipeline import build_chunks, chunk_rows, entity_rows, extract_facts, scan_documents  # noqa: E402
from mnemo.sleep.consolidate import consolidate  # noqa: E402
from mnemo.sleep.merges import canonical_facts, sync_graph  # noqa: E402
from mnemo.stores.embedders import build_embedder  # noqa: E402
from mnemo.stores.files import NamespaceFiles  # noqa: E402
from mnemo.stores.graph import GraphStore  # noqa: E402
from mnemo.stores.vectors import VectorStore  # noqa: E402
from ontology import load_ontology  # noqa: E402


def ingest(files: NamespaceFiles, config, graph: GraphStore) -> float:  # noqa: ANN001
    start = time.perf_counter()
    embedder = build_embedder(config.embedder)
    scan_documents(files, config.namespace("bench"))
    chunks, _ = build_chunks(files, config.chunking.max_words)
    VectorStore(files.vectors_path).sync("chunks", chunk_rows(chunks), embedder)
    extract_facts(files, graph.ontology)
    sync_graph(files, graph)
    VectorStore(files.vectors_path).sync("entities", entity_rows(canonical_facts(files)), embedder)
    return time.perf_counter() - start


def line(label: str, seconds: float, report) -> str:  # noqa: ANN001
    d, c, s, sal = report.dedup, report.communities, report.summaries, report.salience
    return (f"{label:<22} {seconds:7.2f} s | dedup examined {d.examined}, candidates {d.candidates}, merged {len(d.merges)},"
            f" queue {d.queue_size} | communities {c.communities} (summarized {c.summarized}, reused {c.reused},"
            f" modularity {c.modularity}) | summaries made {s.made}, reused {s.reused} | salience items {sal.items},"
            f" faded {sal.faded} | graph writes {report.graph_writes}\n{'':<24}step seconds {report.seconds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, nargs="?")
    parser.add_argument("--synthetic", type=int, default=0)
    parser.add_argument("--synth", type=int, default=0)
    parser.add_argument("--kind", default="obsidian")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        vault = args.path.resolve() if args.path else Path(tmp) / "vault"
        sources = [{"kind": args.kind, "path": str(vault)}]
        if args.synthetic:
            print(f"synthetic vault: {generate(vault, args.synthetic)} notes")
        if args.synth:
            made = synth.generate(Path(tmp), args.synth)
            print(f"synthetic vault (synth.py): {made.notes} notes, {made.chats} chats ({made.messages} messages)")
            sources.append({"kind": "jsonl", "path": str(Path(tmp) / "chats")})
        config = parse_config({"data_dir": str(Path(tmp) / "data"), "embedder": {"kind": "hashing"},
                               "namespaces": {"bench": {"sources": sources}}}, Path(tmp) / "mnemo.yaml")
        files = NamespaceFiles(config.data_dir, "bench")
        graph = GraphStore(files.graph_path, load_ontology())
        print(f"ingest                 {ingest(files, config, graph):7.2f} s, graph: {graph.counts()}")
        now = datetime.now(UTC)
        seconds = {}
        for label, when in (("first consolidation", now), ("second, no change", now),
                            ("next night, no change", now + timedelta(days=1))):
            seconds[label] = _run(label, files, graph, config, when)
        if args.synthetic or args.synth:
            note = sorted((vault / "People").glob("*.md"))[0]
            note.write_text(note.read_text(encoding="utf-8") + "\nOne more line about a new idea.\n", encoding="utf-8")
            print(f"re-ingest after one changed note {ingest(files, config, graph):7.2f} s")
            seconds["one note changed"] = _run("one note changed", files, graph, config, now + timedelta(days=1, hours=1))
        full = seconds.pop("first consolidation")
        print("re-runs as a share of the first consolidation: "
              + ", ".join(f"{label} {100 * value / full:.1f} %" for label, value in seconds.items()))


def _run(label: str, files: NamespaceFiles, graph: GraphStore, config, when: datetime) -> float:  # noqa: ANN001
    start, cpu = time.perf_counter(), time.process_time()
    report = consolidate(files, graph, config.sleep, when, None, VectorStore(files.vectors_path))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(line(label, elapsed, report) + f", CPU {cpu:.2f} s")
    return elapsed

if __name__ == "__main__":
    main()
