"""Precision of the structural MENTIONS edges on a hand-labeled sample (tests/data/mentions_sample.tsv).

The sample holds ids, spans and a label only, never note text. The test re-runs the
structural extractor on each corpus, finds the labeled edges among today's edges, and
recomputes precision over those found; it fails when too few of them are still produced
or when precision drops below 0.95. The sample over-represents alias mentions (all of
them, against a share of the wikilink ones), so the corpus figure weights each method's
sample precision by how many edges of that method the extractor produces.
"""

import csv
from collections import Counter
from pathlib import Path

import pytest

from mnemo.config import SourceConfig
from mnemo.documents import chunk_document
from mnemo.extract.structural import StructuralExtractor
from mnemo.ingest.segments import block_index, chunk_segments
from mnemo.sources.scan import scan_namespace
from ontology import load_ontology
from tests.support import DATA, EXAMPLE_VAULT, corpus

SAMPLE = DATA / "mentions_sample.tsv"
CORPORA = {
    "kepano": ("obsidian", "obsidian-kepano"), "example": ("obsidian", None), "logseq": ("logseq", "logseq-docs"),
    "ideaverse": ("obsidian", "obsidian-ideaverse"),
}


def _sample(name: str) -> list[dict[str, str]]:
    lines = [line for line in SAMPLE.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return [row for row in csv.DictReader(lines, delimiter="\t") if row["corpus"] == name]


def _mentions(name: str, kind: str, root: Path) -> dict[tuple[str, str, str, str, str], str]:
    """(path, chunk position, start, end, entity) -> stratum, for every MENTIONS edge of a corpus: its
    method, with `/untyped` when the entity is an untyped note's (a stratum sampled on its own)."""
    docs = scan_namespace(name, [SourceConfig(kind=kind, path=root)], [], []).documents
    blocks = block_index(docs)
    chunks = [c for d in docs for c in (chunk_segments(d, 180, blocks) if d.segments else chunk_document(d))]
    ontology = load_ontology()
    facts = StructuralExtractor(ontology, name).extract(docs, chunks)
    by_id = {c.id: c for c in chunks}
    untyped = {e for e, row in facts.nodes["Entity"].items() if row["kind"] == ontology.default_type}
    return {
        (by_id[r["src"]].path, str(by_id[r["src"]].position), str(r["span_start"]), str(r["span_end"]), r["dst"]):
            r["method"] + ("/untyped" if r["dst"] in untyped and r["method"].startswith("alias") else "")
        for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values()
    }


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_structural_mentions_precision_on_the_labeled_sample(name: str) -> None:
    kind, folder = CORPORA[name]
    root = corpus(folder) if folder else EXAMPLE_VAULT
    sample = _sample(name)
    current = _mentions(name, kind, root)
    found = [row for row in sample if (row["path"], row["chunk"], row["start"], row["end"], row["entity"]) in current]
    correct = sum(row["label"] == "1" for row in found)
    produced = Counter(current.values())
    labeled = {m: [r["label"] == "1" for r in found if r["method"] == m] for m in {r["method"] for r in found}}
    weighted = sum(produced[m] * sum(ok) / len(ok) for m, ok in labeled.items()) / sum(produced[m] for m in labeled)
    print(f"{name}: {len(found)}/{len(sample)} labeled edges found, sample precision {correct}/{len(found)}, "
          f"per method {({m: f'{sum(ok)}/{len(ok)}' for m, ok in sorted(labeled.items())})}, "
          f"edges {dict(produced)}, weighted precision {weighted:.3f}")
    assert len(sample) >= 10 and len(found) >= 0.9 * len(sample)
    assert weighted >= 0.95
