"""Entity references: `person_id:alice_chen` names the entity `person_alice_chen`.

One parser for every interface (remember, recall's context, get_entity, forget), so a
reference names the same entity everywhere: its id part is slugified the same way."""

import re
from dataclasses import dataclass, field
from typing import Any

from mnemo.documents import slugify
from mnemo.errors import MnemoError

REF = re.compile(r"\b([a-z][a-z0-9]*)_id:([A-Za-z0-9_\-]+)")


@dataclass(frozen=True)
class EntityRef:
    """An entity a memory names: its kind, id slug, properties and relations."""


    kind: str
    slug: str
    properties: dict[str, Any] = field(default_factory=dict)
    relations: list[dict[str, Any]] = field(default_factory=list)


    @property
    def ref(self) -> str:
        return f"{self.kind}_id:{self.slug}"


    @property
    def entity_id(self) -> str:
        return f"{self.kind}_{self.slug}"


def parse_ref(value: str) -> EntityRef:
    """`person_id:alice` -> EntityRef('person', 'alice'); a clear error for anything else."""
    match = REF.fullmatch(value.strip()) if isinstance(value, str) else None
    if not match:
        raise MnemoError(f"invalid entity reference {value!r}: use the form <kind>_id:<id>, e.g. person_id:alice")
    return EntityRef(match.group(1), slugify(match.group(2)))


def refs_in(text: str) -> list[EntityRef]:
    """The entity references written inline in a text, in order, each once."""
    found = [parse_ref(f"{kind}_id:{slug}") for kind, slug in REF.findall(text)]
    return list({r.ref: r for r in found}.values())


def entity_ids_in(values: list[str]) -> list[str]:
    """The ids of the entities referenced in some texts (`person_id:alice_chen` -> `person_alice_chen`)."""
    return list(dict.fromkeys(ref.entity_id for value in values for ref in refs_in(value)))
