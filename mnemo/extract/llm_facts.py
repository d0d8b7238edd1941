"""LLM extractions as graph facts, and their merge with the structural facts.

Every LLM-made element carries its provenance: extractor `llm`, the prompt version, and
(in `props`) the chunk, the model and the ontology version. Entities the notes already
define stay as the notes say; the LLM adds new entities, properties the notes lack,
typed relations and mentions.
"""

import json
from typing import Any

from mnemo.documents import Chunk
from mnemo.facts import ColumnRows, GraphFacts, edge
from ontology import Ontology
from ontology.extraction import id_kind

EXTRACTOR = "llm"


def _span(text: str, names: list[str]) -> tuple[int, int, str]:
    for name in names:
        start = text.find(name) if name else -1
        if start >= 0:
            return start, start + len(name), name
    return -1, -1, names[0] if names else ""


def _properties(entity: dict[str, Any], chunk: Chunk, prompt_version: str) -> dict[str, Any]:
    return {
        p["key"]: {"value": p["value"], "since": p.get("since"), "chunk": chunk.id, "prompt_version": prompt_version}
        for p in entity.get("properties", [])
    }


def add_extraction(
    facts: GraphFacts, chunk: Chunk, extraction: dict[str, Any], ontology: Ontology, *,
    model: str, prompt_version: str, ontology_version: str,
) -> None:
    """Add one chunk's validated extraction (made under `ontology_version`) to `facts`."""
    provenance = {"chunk": chunk.id, "model": model, "ontology_version": ontology_version}
    for entity in extraction.get("entities", []):
        facts.add_node(
            "Entity",
            {
                "id": entity["id"],
                "kind": entity["kind"],
                "name": entity["name"],
                "aliases": sorted(set(entity.get("aliases", []))),
                "properties": json.dumps(
                    _properties(entity, chunk, prompt_version), sort_keys=True, ensure_ascii=False
                ),
                "doc_id": chunk.doc_id,
                "origin": EXTRACTOR,
            },
        )
        start, end, surface = _span(chunk.text, [entity["name"], *entity.get("aliases", [])])
        facts.add_edge("MENTIONS", "Chunk", "Entity", edge(
            "MENTIONS", chunk.id, entity["id"], chunk.doc_id, start=start, end=end, surface=surface,
            method=EXTRACTOR, extractor=EXTRACTOR, prompt_version=prompt_version, props=provenance, key=EXTRACTOR,
        ))
    for rel in extraction.get("relations", []):
        for eid in (rel["source"], rel["target"]):
            if eid not in facts.nodes["Entity"]:
                _implied(facts, eid, ontology, chunk)
        table = rel["type"].upper()
        facts.add_edge(table, "Entity", "Entity", edge(
            table, rel["source"], rel["target"], chunk.doc_id, role=rel.get("role") or "", props=provenance,
            method=f"llm:{model}", extractor=EXTRACTOR, prompt_version=prompt_version,
            valid_from=rel.get("valid_from") or "", valid_to=rel.get("valid_to") or "",
            observed_at=chunk.timestamp or "", key=f"{EXTRACTOR}:{chunk.id}",
        ))


def _implied(facts: GraphFacts, eid: str, ontology: Ontology, chunk: Chunk) -> None:
    """A relation endpoint the answer named by a well-formed new id but did not list."""
    kind = id_kind(eid, tuple(ontology.entity_types)) or "concept"
    name = eid.removeprefix(f"{kind}_").replace("_", " ")
    facts.add_node(
        "Entity",
        {
            "id": eid,
            "kind": kind,
            "name": name,
            "aliases": [],
            "properties": "{}",
            "doc_id": chunk.doc_id,
            "origin": EXTRACTOR,
        },
    )


def merge_facts(structural: GraphFacts, llm: GraphFacts) -> GraphFacts:
    """The structural facts plus what the LLM added; an entity the notes define wins."""
    merged = GraphFacts(
        nodes={table: dict(rows) for table, rows in structural.nodes.items()},
        edges={key: rows.copy() for key, rows in structural.edges.items()},  # dicts or ColumnRows
    )
    entities = merged.nodes["Entity"]
    for eid, row in llm.nodes.get("Entity", {}).items():
        if eid not in entities:
            entities[eid] = row
            continue
        properties = json.loads(entities[eid]["properties"] or "{}")
        added = {k: v for k, v in json.loads(row["properties"] or "{}").items() if k not in properties}
        if added:
            merged.add_node("Entity", {**{k: v for k, v in entities[eid].items() if k != "h"}, "properties": json.dumps(
                {**properties, **added}, sort_keys=True, ensure_ascii=False)})
    chunks = merged.nodes["Chunk"]
    for key, rows in llm.edges.items():
        kept = [row for row in rows.values()
                if (row["src"] in chunks if key[1] == "Chunk" else row["src"] in entities) and row["dst"] in entities]
        target = merged.edges.setdefault(key, {}) if kept else {}
        if isinstance(target, ColumnRows):
            target.extend(kept)
        else:
            target.update((row["id"], row) for row in kept)
    return merged
