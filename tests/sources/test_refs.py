"""One entity-reference parser: recall's context, remember, get_entity and forget read
`person_id:Alice-Chen` as the same entity."""

import pytest

from mnemo.errors import MnemoError
from mnemo.memories.remember import parse_entity
from mnemo.refs import entity_ids_in, parse_ref, refs_in


def test_recall_context_and_get_entity_name_the_same_entity() -> None:
    assert parse_ref("person_id:Alice-Chen").entity_id == "person_alice_chen"
    assert entity_ids_in(["ask person_id:Alice-Chen about it"]) == ["person_alice_chen"]
    assert parse_entity({"kind": "person", "id": "Alice-Chen"}).entity_id == "person_alice_chen"


def test_inline_references_in_order_each_once() -> None:
    text = "project_id:heron with person_id:dana_kim and again project_id:Heron"
    assert [r.ref for r in refs_in(text)] == ["project_id:heron", "person_id:dana_kim"]


def test_a_malformed_reference_is_a_clear_error() -> None:
    with pytest.raises(MnemoError, match="use the form <kind>_id:<id>"):
        parse_ref("alice")
