"""Response models for LLM extraction, generated from the ontology, and their validation.

Entity and relation types are closed sets (Literal) whose field descriptions are the
ontology's own descriptions. After parsing, the extraction is checked against the
ontology and the grounding context: every id is a known one or a well-formed new
`<kind>_<slug>`, relation endpoints fit the relation's domain and range, and nothing
relates to itself. A failed check raises a ValueError listing every problem, which is
what instructor sends back to the model when it re-asks.
"""

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field, ValidationError, ValidationInfo, create_model, model_validator

if TYPE_CHECKING:
    from ontology import Ontology

_SLUG = r"[a-z0-9]+(?:_[a-z0-9]+)*"


def id_kind(eid: str, kinds: tuple[str, ...]) -> str | None:
    """The entity type a well-formed id `<kind>_<slug>` starts with (longest type name first)."""
    for kind in sorted(kinds, key=len, reverse=True):
        if re.fullmatch(rf"{re.escape(kind)}_{_SLUG}", eid):
            return kind
    return None


def extraction_problems(data: Any, ontology: "Ontology", known: dict[str, str]) -> list[str]:
    """Every way an extraction breaks the ontology or the grounding (empty when it is valid)."""
    kinds = tuple(ontology.entity_types)
    problems: list[str] = []
    declared: dict[str, str] = {}
    for entity in data.entities:
        if entity.id in known:
            if known[entity.id] != entity.kind:
                problems.append(f"entity {entity.id} is a {known[entity.id]} in memory, not a {entity.kind}")
        elif id_kind(entity.id, kinds) != entity.kind:
            problems.append(f"entity id {entity.id!r} is neither a known id nor of the form {entity.kind}_<slug>")
        declared[entity.id] = entity.kind
    for rel in data.relations:
        ends: list[str | None] = []
        for eid in (rel.source, rel.target):
            kind = known.get(eid) or declared.get(eid) or id_kind(eid, kinds)
            if kind is None:
                problems.append(f"{rel.type}: {eid!r} is neither a known id nor of the form <kind>_<slug>")
            ends.append(kind)
        source_kind, target_kind = ends
        if rel.source == rel.target:
            problems.append(f"{rel.type}: {rel.source} cannot be related to itself")
        elif source_kind is not None and target_kind is not None:
            reason = ontology.check(rel.type, source_kind, target_kind)
            if reason:
                problems.append(reason)
    return problems


def _one_of(values: tuple[str, ...]) -> Any:
    """`Literal[values]` for values known only at run time (a type pydantic builds a model from)."""
    return Literal[values]


def _item_models(ontology: "Ontology") -> tuple[type[BaseModel], type[BaseModel]]:
    """The entity (with properties carrying `since`) and relation (with validity) models."""
    kinds = tuple(ontology.entity_types)
    kind_doc = "; ".join(f"{t.name}: {t.description}" for t in ontology.entity_types.values())
    rel_doc = "; ".join(
        f"{r.name} ({'/'.join(r.domain)} -> {'/'.join(r.range)}): {r.description}"
        for r in ontology.relation_types.values()
    )
    prop = create_model(
        "ExtractedProperty",
        key=(str, Field(description="The property name in snake_case, e.g. `birthday`, `role`, `email`.")),
        value=(str, Field(description="The value as stated in the text.")),
        since=(str | None, Field(default=None, description="ISO date from which the text says it holds, if stated.")),
    )
    entity = create_model(
        "ExtractedEntity",
        id=(str, Field(description="An id from the grounding context, or a new id `<kind>_<slug>`.")),
        kind=(_one_of(kinds), Field(description=f"The entity type. {kind_doc}")),
        name=(str, Field(description="The canonical name as written in the text.")),
        aliases=(list[str], Field(default_factory=list, description="Other names used for it in the text.")),
        properties=(list[prop], Field(default_factory=list, description="Facts about the entity stated in the text.")),  # type: ignore[valid-type]
    )
    relation = create_model(
        "ExtractedRelation",
        type=(_one_of(tuple(ontology.relation_types)), Field(description=f"The relation type. {rel_doc}")),
        source=(str, Field(description="The id of the source entity (grounding id or a new `<kind>_<slug>`).")),
        target=(str, Field(description="The id of the target entity (grounding id or a new `<kind>_<slug>`).")),
        role=(str | None, Field(default=None, description="For related_to: how the two are related.")),
        valid_from=(str | None, Field(default=None, description="ISO date the relation started, if the text says so.")),
        valid_to=(str | None, Field(default=None, description="ISO date the relation ended, if the text says so.")),
    )
    return entity, relation


def build_extraction_model(ontology: "Ontology") -> type[BaseModel]:
    """The `Extraction` response model, validated against the ontology and the grounding."""
    entity, relation = _item_models(ontology)

    def check(self: Any, info: ValidationInfo) -> Any:
        known = (info.context or {}).get("known", {})
        problems = extraction_problems(self, ontology, known)
        if problems:
            raise ValueError("the extraction breaks the ontology: " + "; ".join(problems))
        return self

    # pydantic's stubs type __validators__ as plain callables; its decorators return descriptor proxies
    return create_model(
        "Extraction",
        entities=(list[entity], Field(default_factory=list, description="Entities the text mentions.")),  # type: ignore[valid-type]
        relations=(list[relation], Field(default_factory=list, description="Relations the text states.")),  # type: ignore[valid-type]
        __validators__={"check_ontology": model_validator(mode="after")(check)},  # type: ignore[dict-item]
    )


def _keep(item_model: type[BaseModel], items: Any, problems: Any) -> tuple[list[Any], int]:
    """The items that parse and have no problems, and how many did not."""
    kept, dropped = [], 0
    for item in items or []:
        try:
            value = item_model.model_validate(item)
        except ValidationError:
            dropped += 1
            continue
        if problems(value):
            dropped += 1
        else:
            kept.append(value)
    return kept, dropped


def salvage(
    model: type[BaseModel], raw: dict[str, Any], ontology: "Ontology", known: dict[str, str]
) -> tuple[BaseModel, int]:
    """Keep the valid items of an answer that failed validation; return it and the dropped count."""
    fields = model.model_fields
    entity_model = fields["entities"].annotation.__args__[0]  # type: ignore[union-attr]
    relation_model = fields["relations"].annotation.__args__[0]  # type: ignore[union-attr]

    def check(entities: list[Any], relations: list[Any]) -> list[str]:
        return extraction_problems(model.model_construct(entities=entities, relations=relations), ontology, known)

    entities, dropped_entities = _keep(entity_model, raw.get("entities"), lambda e: check([e], []))
    relations, dropped_relations = _keep(relation_model, raw.get("relations"), lambda r: check(entities, [r]))
    return model.model_construct(entities=entities, relations=relations), dropped_entities + dropped_relations
