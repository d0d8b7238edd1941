"""What a forget costs on a realistic namespace, and that it leaves no byte of what it forgot.

Generates the suite's synthetic vault (`benchmarks.synth`), ingests it, remembers one memory,
ingests again, runs sleep mode and write-back, then forgets the memory and one person (whose note
has a write-back block), timing each with its phases (files, vectors and sleep files; the graph
rebuild). After each, the namespace folder is searched byte for byte for the forgotten text.

A second run in the same WORK reuses its namespace (a new memory, the next person with a block).

Usage: .venv/bin/python -m benchmarks.forget_bench WORK [--notes 10000] [--embedder hashing] [--json OUT]
"""

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from benchmarks import measure, sleep_bench  # noqa: E402
from benchmarks.synth import generate  # noqa: E402
from mnemo.client import MemoryClient  # noqa: E402
from mnemo.config import load_config  # noqa: E402
from mnemo.documents import slugify  # noqa: E402
from mnemo.writeback.run import writeback_namespace  # noqa: E402
from ontology import load_ontology  # noqa: E402

NEEDLE = "zebra-7731-quokka"


def holders(root: Path, needle: bytes) -> list[str]:
    """Files under `root` whose raw bytes hold `needle` (Parquet pages are compressed: see the tests
    for the decoded search)."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and needle in p.read_bytes())


def _timed_forget(client: MemoryClient, memory: str | None = None, entity: str | None = None) -> dict[str, Any]:
    start = time.perf_counter()
    report = client.forget(memory, entity)
    what = {"memory": memory, "entity": entity}
    return {"what": what, "wall_s": round(time.perf_counter() - start, 2), "phases_s": report.seconds,
            "notes": report.notes, "docs": len(report.docs)}


def _a_person_with_a_block(vault: Path) -> tuple[str, Path, bytes]:
    """A person whose note has a write-back block: its reference, the note and a line of its body."""
    for note in sorted((vault / "People").glob("*.md")):
        text = note.read_text(encoding="utf-8")
        if "mnemo:" in text:
            line = next(line for line in text.split("\n# ", 1)[1].splitlines() if len(line) > 40)
            return f"person_id:{slugify(note.stem)}", note, line.encode()
    raise RuntimeError("no person note with a write-back block")


def _prepared(work: Path, notes: int, embedder: str) -> tuple[Path, measure.IngestRunner]:
    """The namespace ingested, consolidated and written back (kept in WORK: a second run reuses it)."""
    if (work / "mnemo.yaml").exists():
        config = work / "mnemo.yaml"
        return config, measure.IngestRunner(config)
    vault = generate(work / "src", notes)
    config = measure.write_config(work, vault.root, embedder)
    runner = measure.IngestRunner(config)
    runner.run()
    sleep_bench.run_job(runner, "sleep_mode_job")
    writeback_namespace(load_config(config), measure.NAMESPACE, load_ontology())
    return config, runner


def run(work: Path, notes: int, embedder: str) -> dict[str, Any]:
    config, runner = _prepared(work, notes, embedder)
    memory = MemoryClient(measure.NAMESPACE, config).remember(f"The locker code at the climbing gym is {NEEDLE}")
    ingest = runner.run()
    root = runner.files.root
    out: dict[str, Any] = {"notes": notes, "ingest_after_remember_s": round(ingest.wall, 1),
                           "graph_mb": round(runner.files.graph_path.stat().st_size / 2**20, 1),
                           "chunks": len(runner.files.read_chunks()), "memory_found_before": holders(root, NEEDLE.encode())}
    client = MemoryClient(measure.NAMESPACE, config)
    out["forget_memory"] = _timed_forget(client, memory=memory.id)
    out["memory_found_after"] = holders(root, NEEDLE.encode())
    ref, note, line = _a_person_with_a_block(Path(load_config(config).namespace(measure.NAMESPACE).sources[0].path))
    out["page_found_before"] = holders(root, line)
    out["forget_entity"] = _timed_forget(client, entity=ref)
    out["page_found_after"] = holders(root, line)
    out["note_block_left"] = "mnemo:" in note.read_text(encoding="utf-8")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work", type=Path)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--embedder", default="hashing")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = run(args.work, args.notes, args.embedder)
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
