"""Precision of the relations an LLM adds beyond the structural extractor, on hand-labelled chunks.

Usage: .venv/bin/python benchmarks/llm_relations.py --url http://127.0.0.1:PORT/v1 --model ID
           [--corpus ../shared/corpora/obsidian-kepano] [--labels tests/data/llm_relations_kepano.json]
           [--cache DIR] [--limit N] [--json OUT]
The whole vault is read and extracted structurally (the grounding context comes from it, as in an
ingest); the labelled chunks are then sent to the model through the same run an ingest makes (cache,
pending list, evidence check). A relation is counted as the model's addition when the structural
facts do not already relate its two ends. An addition is right when the chunk's labels hold a
relation between the same two names (lenient), and of the same type and direction (strict). Names
match when one normalized name holds the other. The cache makes a second run send nothing.
"""

import argparse
import json
import time
from pathlib import Path
from typing import Any

from mnemo.config import GroundingConfig, LLMConfig, SourceConfig
from mnemo.documents import Chunk, chunk_document, normalize_name
from mnemo.extract.grounding import Grounder, salience
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_run import LLMRun, LLMRunStats
from mnemo.extract.structural import StructuralExtractor
from mnemo.facts import GraphFacts
from mnemo.sources.scan import scan_namespace
from ontology import load_ontology

REPO = Path(__file__).resolve().parents[1]
NOT_RELATIONS = {"PAGE_OF", "MENTIONS", "ALIAS_OF"}
Triple = tuple[str, str, str]  # type, source name, target name


def relations(facts: GraphFacts, doc_id: str | None = None, chunk_id: str | None = None) -> list[Triple]:
    """Entity-to-entity relations by name, of one document (structural) or one chunk (LLM)."""
    names = {eid: row["name"] for eid, row in facts.nodes.get("Entity", {}).items()}
    found = []
    for (table, src_table, dst_table), rows in facts.edges.items():
        if table in NOT_RELATIONS or (src_table, dst_table) != ("Entity", "Entity"):
            continue
        for row in rows.values():
            if doc_id is not None and row["doc_id"] != doc_id:
                continue
            if chunk_id is not None and json.loads(row["props"] or "{}").get("chunk") != chunk_id:
                continue
            found.append((table.lower(), names.get(row["src"], row["src"]), names.get(row["dst"], row["dst"])))
    return found


def same_name(a: str, b: str) -> bool:
    x, y = normalize_name(a), normalize_name(b)
    return bool(x and y) and (x in y or y in x)


def related(pair: tuple[str, str], triples: list[Triple]) -> bool:
    return any((same_name(pair[0], s) and same_name(pair[1], t)) or (same_name(pair[0], t) and same_name(pair[1], s))
               for _, s, t in triples)


def strict_match(triple: Triple, labels: list[Triple]) -> bool:
    return any(triple[0] == k and same_name(triple[1], s) and same_name(triple[2], t) for k, s, t in labels)


def score(labelled: list[tuple[Chunk, list[Triple]]], structural: GraphFacts,
          llm: dict[str, GraphFacts]) -> dict[str, Any]:
    """Counts per chunk and in all: labelled relations found structurally, the model's additions and
    how many of them the labels hold."""
    totals = {"labelled": 0, "structural_found": 0, "with_model_found": 0, "added": 0, "added_right_lenient": 0,
              "added_right_strict": 0}
    rows = []
    for chunk, labels in labelled:
        known = relations(structural, doc_id=chunk.doc_id)
        added = [t for t in relations(llm[chunk.id], chunk_id=chunk.id) if not related((t[1], t[2]), known)]
        right = [t for t in added if related((t[1], t[2]), labels)]
        found_structural = [t for t in labels if related((t[1], t[2]), known)]
        found_with = [t for t in labels if related((t[1], t[2]), known + added)]
        counts = {"labelled": len(labels), "structural_found": len(found_structural),
                  "with_model_found": len(found_with), "added": len(added), "added_right_lenient": len(right),
                  "added_right_strict": sum(strict_match(t, labels) for t in added)}
        for key, value in counts.items():
            totals[key] += value
        rows.append({"path": chunk.path, "position": chunk.position, **counts, "added_relations": added})
    return {"totals": totals, "chunks": rows}


def labelled_chunks(corpus: Path, labels_path: Path) -> tuple[list[tuple[Chunk, list[Triple]]], GraphFacts]:
    ontology = load_ontology()
    docs = scan_namespace("bench", (SourceConfig(kind="obsidian", path=corpus),), [], []).documents
    chunks = [c for d in docs for c in chunk_document(d)]
    by_place = {(c.path, c.position): c for c in chunks}
    facts = StructuralExtractor(ontology, "bench").extract(docs, chunks)
    labels = json.loads(labels_path.read_text(encoding="utf-8"))["chunks"]
    return [(by_place[(item["path"], item["position"])], [tuple(r) for r in item["relations"]])
            for item in labels], facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpora" / "obsidian-kepano")
    parser.add_argument("--labels", type=Path, default=REPO / "tests" / "data" / "llm_relations_kepano.json")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/mnemo-llm-relations-cache"))
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--max-tokens", type=int, default=400, help="cap on each answer's tokens")
    parser.add_argument("--limit", type=int, help="only the first N labelled chunks")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    ontology = load_ontology()
    labelled, structural = labelled_chunks(args.corpus, args.labels)
    labelled = labelled[: args.limit]
    settings = LLMConfig(base_url=args.url, model=args.model, mode="auto", timeout=args.timeout, concurrency=1,
                         transient_retries=1, retry_wait=1.0, max_retries=1, max_tokens=args.max_tokens)
    extractor = LLMExtractor(settings, ontology, "")
    grounder = Grounder(structural.nodes["Entity"], GroundingConfig(neighbours=0), salience(structural))
    start = time.perf_counter()
    stats = LLMRunStats()
    llm = {}
    for chunk, _ in labelled:  # a cache per chunk: a run stopped part way keeps the chunks it finished
        run = LLMRun(ExtractionCache(args.cache / chunk.id), extractor, ontology, 1)
        llm[chunk.id] = run.run([chunk], grounder)
        for name in ("extracted", "cached", "failed", "dropped", "ungrounded"):
            setattr(stats, name, getattr(stats, name) + getattr(run.stats, name))
        stats.pending += run.stats.pending
    result = score(labelled, structural, llm)
    totals = result["totals"]
    result.update(model=args.model, mode=extractor.mode, seconds=round(time.perf_counter() - start, 1),
                  run=vars(stats), requests=extractor.usage.requests,
                  prompt_tokens=extractor.usage.prompt_tokens, completion_tokens=extractor.usage.completion_tokens)
    added = totals["added"]
    print(f"model {args.model} ({extractor.mode} mode), {len(labelled)} labelled chunks, {result['seconds']} s")
    print(f"  labelled relations: {totals['labelled']}; found by structural alone: {totals['structural_found']}; "
          f"with the model: {totals['with_model_found']}")
    print(f"  relations the model added: {added}; right (same ends): {totals['added_right_lenient']}; "
          f"right (same type and direction): {totals['added_right_strict']}; precision "
          f"{totals['added_right_lenient'] / added if added else float('nan'):.2f} lenient, "
          f"{totals['added_right_strict'] / added if added else float('nan'):.2f} strict")
    print(f"  extracted {stats.extracted}, cached {stats.cached}, pending {stats.failed}, dropped "
          f"invalid {stats.dropped}, dropped ungrounded {stats.ungrounded}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
