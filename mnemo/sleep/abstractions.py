"""Abstraction nodes: for entities of one kind that share a community, the LLM may name a more
general concept some of them are instances of; the concept becomes an Entity (kind `concept`,
origin `sleep`) and each member gets an ontology `instance_of` edge to it.

Answers are kept in `state/abstractions.json` by a digest of the group (model, prompt version,
kind, member ids and names), so a group is asked about once; a group that changes is asked
again, and without an LLM the answers already given for unchanged groups still stand. When the
model fails to answer for a changed group, the last run's answers whose members all still exist
stand too (no concept disappears because a request failed).
"""

import json
from dataclasses import dataclass
from typing import Any

from mnemo.documents import content_hash, entity_id
from mnemo.facts import edge
from mnemo.sleep.abstractive import SLEEP_PROMPT_VERSION, SleepWriter
from mnemo.sleep.store import Overlay
from mnemo.sleep.view import FactsView

GROUP_KINDS = ("artifact", "project", "place", "event", "organization", "concept")
MAX_GROUP = 15


@dataclass
class AbstractionStats:
    groups: int = 0
    asked: int = 0
    concepts: int = 0
    links: int = 0


def sibling_groups(view: FactsView, communities: Overlay) -> list[tuple[str, dict[str, str]]]:
    """(kind, {id: name}) for each level-0 community's members of one kind, 2..MAX_GROUP of them."""
    groups = []
    for row in sorted(communities.nodes.get("Community", {}).values(), key=lambda r: r["id"]):
        if row["level"] != 0:
            continue
        by_kind: dict[str, dict[str, str]] = {}
        for eid in json.loads(row["members"]):
            entity = view.entities.get(eid)
            if entity and entity["kind"] in GROUP_KINDS:
                by_kind.setdefault(entity["kind"], {})[eid] = entity["name"]
        for kind, members in sorted(by_kind.items()):
            if 2 <= len(members) <= MAX_GROUP:
                groups.append((kind, members))
    return groups


def _key(kind: str, members: dict[str, str]) -> str:
    return content_hash(SLEEP_PROMPT_VERSION, kind, *(f"{e}={n}" for e, n in sorted(members.items())))


def build_abstractions(view: FactsView, communities: Overlay, writer: SleepWriter | None,
                       state: dict[str, Any]) -> tuple[Overlay, dict[str, Any], AbstractionStats]:
    """The abstraction overlay, the answers to keep, and counts."""
    known = state.get("answers", {})
    kept: dict[str, Any] = {}
    stats = AbstractionStats()
    overlay = Overlay()
    failed = False
    for kind, members in sibling_groups(view, communities):
        stats.groups += 1
        key = _key(kind, members)
        if key not in known and writer is not None:
            stats.asked += 1
            answer = writer.abstraction(members, kind)
            if answer is not None:  # a failed request is asked again next run
                known[key] = {**answer.model_dump(), "model": writer.model}
            failed = failed or answer is None
        if key in known:
            kept[key] = known[key]
            _add(overlay, view, kept[key], stats)
    if failed:
        for key, answer in known.items():
            if key not in kept and all(m in view.entities for m in answer["members"]):
                kept[key] = answer
                _add(overlay, view, answer, stats)
    return overlay, {"answers": kept}, stats


def _add(overlay: Overlay, view: FactsView, answer: dict[str, Any], stats: AbstractionStats) -> None:
    if not answer.get("concept"):
        return
    concept_id = entity_id("concept", answer["concept"])
    if concept_id not in view.entities and concept_id not in overlay.nodes.get("Entity", {}):
        overlay.add_node("Entity", {
            "id": concept_id, "kind": "concept", "name": answer["concept"], "aliases": [],
            "properties": json.dumps({"made_by": "sleep", "model": answer["model"]}, sort_keys=True),
            "doc_id": "", "origin": "sleep",
        })
        stats.concepts += 1
    for member in answer["members"]:
        overlay.add_edge("INSTANCE_OF", "Entity", "Entity", edge(
            "INSTANCE_OF", member, concept_id, "", extractor="sleep", method=f"llm:{answer['model']}",
            prompt_version=SLEEP_PROMPT_VERSION))
        stats.links += 1
