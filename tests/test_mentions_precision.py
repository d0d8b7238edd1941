"""Precision of the structural MENTIONS edges on a hand-labeled sample (tests/data/mentions_sample.tsv).

The sample holds ids, spans and a label only, never note text. The test re-runs the
structural extractor on each corpus, finds the labeled edges among today's edges, and
recomputes precision over those found; it fails when too few of them are still produced
or when precision drops below 0.95.
"""

import csv
from pathlib import Path

import pytest
from tests.conftest import EXAMPLE_VAULT, corpus

from mnemo.config import SourceConfig
from mnemo.documents import chunk_document
from mnemo.extract.structural import StructuralExtractor
from mnemo.sources.scan import scan_namespace
from ontology import load_ontology

SAMPLE = Path(__file__).with_name("data") / "mentions_sample.tsv"


def _sample(name: str) -> list[dict[str, str]]:
    lines = [line for line in SAMPLE.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    return [row for row in csv.DictReader(lines, delimiter="\t") if row["corpus"] == name]


def _mentions(name: str, root: Path) -> set[tuple[str, str, str, str, str]]:
    docs = scan_namespace(name, [SourceConfig(kind="obsidian", path=root)], [], []).documents
    chunks = [c for d in docs for c in chunk_document(d)]
    facts = StructuralExtractor(load_ontology(), name).extract(docs, chunks)
    by_id = {c.id: c for c in chunks}
    return {
        (by_id[r["src"]].path, str(by_id[r["src"]].position), str(r["span_start"]), str(r["span_end"]), r["dst"])
        for r in facts.edges[("MENTIONS", "Chunk", "Entity")].values()
    }


@pytest.mark.parametrize("name", ["kepano", "example"])
def test_structural_mentions_precision_on_the_labeled_sample(name: str) -> None:
    root = EXAMPLE_VAULT if name == "example" else corpus("obsidian-kepano")
    sample = _sample(name)
    current = _mentions(name, root)
    found = [row for row in sample if (row["path"], row["chunk"], row["start"], row["end"], row["entity"]) in current]
    correct = sum(row["label"] == "1" for row in found)
    print(f"{name}: {len(found)}/{len(sample)} labeled edges found, precision {correct}/{len(found)}")
    assert len(sample) >= 10 and len(found) >= 0.9 * len(sample)
    assert correct / len(found) >= 0.95
