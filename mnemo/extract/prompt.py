"""The extraction prompt. Its text is versioned: bump PROMPT_VERSION whenever it changes,
because cached extractions and every extracted element are keyed by it."""

import json

from mnemo.documents import Chunk
from mnemo.extract.grounding import GroundedEntity
from ontology import Ontology

PROMPT_VERSION = "extract-2026.11.1"

_INSTRUCTIONS = """\
You extract a personal knowledge graph from one passage of someone's notes or chats.
Return the entities the passage mentions and the relations it states, using ONLY the
entity and relation types below.

Rules:
- Reuse ids from the grounding context whenever the passage means a known entity,
  including when it uses a nickname or alias. Never invent a second id for it.
- A new entity gets the id `<kind>_<slug>`: its type, an underscore, and its name in
  lower-case ASCII words joined by underscores (`person_ines_carvalho`).
- Relations must respect each type's domain and range; use related_to with a `role` when
  no specific type fits. No entity is related to itself.
- Put valid_from / valid_to on a relation only when the passage says when it started or
  ended, and `since` on a property only when the passage says from when it holds.
- Extract only what the passage states; do not guess.

Entity types:
{entity_types}

Relation types (domain -> range):
{relation_types}

Example:
Grounding: person_alice_chen (person) "Alice Chen", aliases: Ali
Passage: "Ali moved to Porto in March 2025 and now works for Tidewater."
Answer: entities: person_alice_chen, place_porto, organization_tidewater;
relations: lives_in person_alice_chen -> place_porto (valid_from 2025-03),
works_at person_alice_chen -> organization_tidewater.
"""


def system_prompt(ontology: Ontology) -> str:
    """The instructions, with the ontology's vocabulary spelled out."""
    entity_types = "\n".join(f"- {t.name}: {t.description}" for t in ontology.entity_types.values())
    relation_types = "\n".join(
        f"- {r.name} ({', '.join(r.domain)} -> {', '.join(r.range)}): {r.description}"
        for r in ontology.relation_types.values()
    )
    return _INSTRUCTIONS.format(entity_types=entity_types, relation_types=relation_types)


def user_prompt(chunk: Chunk, grounding: list[GroundedEntity]) -> str:
    """The grounding context and the passage itself."""
    known = "\n".join(json.dumps(g.to_dict(), ensure_ascii=False) for g in grounding) or "(none)"
    where = " > ".join(p for p in (chunk.title, chunk.heading) if p)
    when = f"\nWritten: {chunk.timestamp}" if chunk.timestamp else ""
    return f"Grounding context (known entities):\n{known}\n\nSource: {where}{when}\nPassage:\n{chunk.text}"


def messages(ontology: Ontology, chunk: Chunk, grounding: list[GroundedEntity]) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": system_prompt(ontology)},
        {"role": "user", "content": user_prompt(chunk, grounding)},
    ]
