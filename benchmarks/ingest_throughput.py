"""Ingest throughput per source format: messages/s for chats, blocks/s for Logseq.

Two figures per format:
- read: scanning and parsing files into Documents, then chunking (mnemo core, no stores);
- ingest: the whole Dagster ingest job (scan, chunk, hashing embeddings into LanceDB,
  structural extraction, Kùzu graph) on a fresh data directory.

Inputs: the real corpora in ../shared/corpora when present (ChatGPT pkuppens export,
Logseq docs graph), and generated exports (Claude, JSONL) of a fixed size, written to a
temp folder. Usage: .venv/bin/python benchmarks/ingest_throughput.py [--skip-ingest]
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import dagster as dg
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mnemo.config import SourceConfig, SourceKind  # noqa: E402
from mnemo.ingest.segments import block_index, chunk_segments  # noqa: E402
from mnemo.sources.scan import scan_namespace  # noqa: E402
from mnemo_dagster.definitions import build_defs  # noqa: E402
from mnemo_dagster.resources import default_resources  # noqa: E402

CORPORA = REPO.parent / "shared" / "corpora"
WORDS = "the train to porto leaves at nine and we walk along the river after lunch".split()


def _sentence(i: int, n: int = 18) -> str:
    return " ".join(WORDS[(i + k) % len(WORDS)] for k in range(n)).capitalize() + "."


def write_claude(path: Path, conversations: int = 100, messages: int = 40) -> None:
    data = []
    for c in range(conversations):
        msgs = [{
            "uuid": f"m-{c}-{m}", "sender": "human" if m % 2 == 0 else "assistant", "text": _sentence(c * 7 + m),
            "created_at": f"2025-{1 + c % 12:02d}-{1 + c % 28:02d}T10:{m // 60:02d}:{m % 60:02d}Z",
        } for m in range(messages)]
        data.append({"uuid": f"conv-{c}", "name": f"Conversation {c}", "created_at": msgs[0]["created_at"], "chat_messages": msgs[::-1]})
    path.write_text(json.dumps(data), encoding="utf-8")


def write_jsonl(path: Path, conversations: int = 100, messages: int = 40) -> None:
    lines = [
        json.dumps({"conversation": f"c{c}", "speaker": "Sam" if m % 2 == 0 else "Dana", "text": _sentence(c + m),
                    "timestamp": 1767261600 + c * 86400 + m * 60})
        for c in range(conversations) for m in range(messages)
    ]
    path.write_text("\n".join(lines), encoding="utf-8")


def read_rate(kind: SourceKind, path: Path, repeats: int = 3) -> tuple[int, int, float]:
    """(units, chunks, seconds per pass) for scanning + parsing + chunking the source."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        docs = scan_namespace("bench", (SourceConfig(kind=kind, path=path),), [], []).documents
        blocks = block_index(docs)
        chunks = [c for d in docs for c in chunk_segments(d, 180, blocks)]
        best = min(best, time.perf_counter() - start)
    units = sum(len(d.segments) for d in docs)
    return units, len(chunks), best


def ingest_rate(kind: str, path: Path, root: Path) -> float:
    """Seconds for one full ingest job run on a fresh data directory (hashing embedder)."""
    config = root / f"{kind}.yaml"
    config.write_text(yaml.safe_dump({
        "data_dir": str(root / f"data-{kind}"), "embedder": {"kind": "hashing"},
        "namespaces": {"bench": {"sources": [{"kind": kind, "path": str(path)}]}},
    }), encoding="utf-8")
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions("namespace", ["bench"])
    job = build_defs(default_resources(str(config))).resolve_job_def("ingest_job")
    start = time.perf_counter()
    assert job.execute_in_process(partition_key="bench", instance=instance).success
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-ingest", action="store_true", help="only measure reading and chunking")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_claude(root / "claude.json")
        write_jsonl(root / "chats.jsonl")
        cases: list[tuple[SourceKind, Path, str]] = [("claude", root / "claude.json", "messages"),
                                                     ("jsonl", root / "chats.jsonl", "messages")]
        if (CORPORA / "chat-exports").exists():
            cases.insert(0, ("chatgpt", CORPORA / "chat-exports/chatgpt/pkuppens-my_chat_gpt/conversations.json", "messages"))
            cases.append(("logseq", CORPORA / "logseq-docs", "blocks"))
        print(f"{'format':8} {'units':>7} {'chunks':>7} {'read+chunk':>18} {'full ingest':>17}")
        for kind, path, unit in cases:
            units, chunks, seconds = read_rate(kind, path)
            line = f"{kind:8} {units:7d} {chunks:7d} {units / seconds:8.0f} {unit}/s"
            if not args.skip_ingest:
                line += f" {units / ingest_rate(kind, path, root):7.0f} {unit}/s"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
