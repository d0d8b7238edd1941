"""Evidence: an LLM answer keeps only what the chunk itself shows.

An entity stands when its name or one of its aliases occurs in the chunk (its title, heading
path and text; case-, accent- and punctuation-insensitive, on word boundaries), or, for an id of
the grounding context, when that known entity's name or an alias does. A relation stands when
both its ends do: an entity of the answer that stands, a grounding entity named in the chunk, or
a new id `<kind>_<slug>` whose slug's words occur in the chunk. The rest is dropped and counted
(typically ids copied from the prompt's own example, or people the chunk never names).
"""

from typing import Any

from mnemo.documents import Chunk, NamedWords
from mnemo.extract.grounding import GroundedEntity
from ontology import Ontology
from ontology.extraction import id_kind


def _slug_words(eid: str, ontology: Ontology) -> str:
    kind = id_kind(eid, tuple(ontology.entity_types))
    return eid.removeprefix(f"{kind}_").replace("_", " ") if kind else ""


def grounded_answer(
    extraction: dict[str, Any], chunk: Chunk, grounding: list[GroundedEntity], ontology: Ontology
) -> tuple[dict[str, Any], int]:
    """The extraction without the entities and relations the chunk gives no evidence for, and how
    many were dropped."""
    words = NamedWords(chunk.context_text)
    known = {g.id: (g.name, *g.aliases) for g in grounding}
    entities = [
        e for e in extraction.get("entities", [])
        if words.names_any([e["name"], *e.get("aliases", []), *known.get(e["id"], ())])
    ]
    declared = {e["id"] for e in extraction.get("entities", [])}
    standing = {e["id"] for e in entities}
    standing |= {eid for eid, names in known.items() if eid not in declared and words.names_any(names)}

    def stands(eid: str) -> bool:
        return eid in standing or (eid not in declared and eid not in known
                                   and words.names_any([_slug_words(eid, ontology)]))

    said = extraction.get("relations", [])
    relations = [r for r in said if stands(r["source"]) and stands(r["target"])]
    dropped = len(extraction.get("entities", [])) - len(entities) + len(said) - len(relations)
    return {**extraction, "entities": entities, "relations": relations}, dropped
