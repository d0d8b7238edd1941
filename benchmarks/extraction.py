"""Extraction cost: offline structural throughput, and LLM requests/tokens per chunk on a stub.

Usage: .venv/bin/python benchmarks/extraction.py [PATH ...] [--repeat N]
For each vault: the structural extractor's chunks/s (best of N runs), then one LLM
extraction run against the loopback stub endpoint of tests/support/llm_stub.py (which answers with
the grounded entities the passage names, and estimates tokens as characters / 4), then a
second run over the same chunks, which must send nothing.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from mnemo.config import GroundingConfig, LLMConfig, SourceConfig
from mnemo.documents import chunk_document
from mnemo.extract.grounding import Grounder, salience
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_run import LLMRun
from mnemo.extract.structural import StructuralExtractor
from mnemo.sources.scan import scan_namespace
from ontology import load_ontology

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.support.llm_stub import Reply, StubLLM, is_probe  # noqa: E402


def grounded_answer(request: dict) -> Reply:
    """The grounding entities whose name occurs in the passage, as the extraction."""
    if is_probe(request):
        return Reply(arguments={"ok": True})
    prompt = next(m["content"] for m in request["messages"] if m["role"] == "user")
    known, _, passage = prompt.partition("\nPassage:\n")
    entities = []
    for line in known.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            if item["name"] in passage:
                entities.append({"id": item["id"], "kind": item["kind"], "name": item["name"]})
    return Reply(arguments={"entities": entities, "relations": []})


def measure(path: Path, repeat: int) -> None:
    ontology = load_ontology()
    docs = scan_namespace("bench", (SourceConfig(kind="obsidian", path=path),), [], []).documents
    chunks = [c for d in docs for c in chunk_document(d)]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        facts = StructuralExtractor(ontology, "bench").extract(docs, chunks)
        best = min(best, time.perf_counter() - start)
    print(f"{path.name}: {len(docs)} notes, {len(chunks)} chunks")
    print(f"  structural: {best:.3f} s, {len(chunks) / best:.0f} chunks/s (best of {repeat})")
    grounder = Grounder(facts.nodes["Entity"], GroundingConfig(neighbours=0), salience(facts))
    with tempfile.TemporaryDirectory() as tmp, StubLLM(responder=grounded_answer) as stub:
        settings = LLMConfig(base_url=stub.url, model="stub", retry_wait=0.01)
        for label in ("first run", "second run"):
            extractor = LLMExtractor(settings, ontology, "")
            run = LLMRun(ExtractionCache(Path(tmp)), extractor, ontology, settings.concurrency)
            start = time.perf_counter()
            run.run(chunks, grounder)
            seconds = time.perf_counter() - start
            usage, n = extractor.usage, len(chunks)
            print(
                f"  llm {label}: {usage.requests} requests ({usage.requests / n:.2f}/chunk incl. the probe), "
                f"{usage.prompt_tokens / n:.0f} prompt + {usage.completion_tokens / n:.0f} completion tokens/chunk, "
                f"{run.stats.extracted} extracted, {run.stats.cached} cached, {seconds:.2f} s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = [REPO / "examples" / "vault", REPO.parent / "shared" / "corpora" / "obsidian-kepano"]
    parser.add_argument("paths", type=Path, nargs="*", default=[p for p in default if p.exists()])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for path in args.paths:
        measure(path.resolve(), args.repeat)


if __name__ == "__main__":
    main()
