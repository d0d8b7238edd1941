"""The self profile: a versioned portrait of the namespace's own person.

Stable traits and preferences (the self entity's properties and relations), current state
(projects, organizations and communities it belongs to), and recent notable episodes (the
latest day summaries that mention it). A new version is made only when the portrait's
content changed; older versions stay, linked to the same entity.
"""

import json
from dataclasses import dataclass
from typing import Any

from mnemo.documents import content_hash, entity_id, normalize_name
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.store import Overlay
from mnemo.sleep.text import sentences
from mnemo.sleep.view import FactsView

CURRENT_KINDS = ("project", "organization")


@dataclass
class ProfileStats:
    entity: str
    version: int
    changed: bool


def find_self(view: FactsView, self_name: str | None) -> str | None:
    """The self entity: by id, then by name or alias."""
    if not self_name:
        return None
    guess = entity_id("person", self_name)
    if guess in view.entities:
        return guess
    wanted = normalize_name(self_name)
    for eid, row in sorted(view.entities.items()):
        if wanted in {normalize_name(n) for n in (row["name"], *(row["aliases"] or []))}:
            return eid
    return None


def portrait(view: FactsView, eid: str, communities: Overlay, summaries: Overlay) -> dict[str, Any]:
    row = view.entities[eid]
    names = {e: view.entities[e]["name"] for e in view.entities}
    traits = {k: v for k, v in json.loads(row["properties"] or "{}").items()}
    related: dict[str, list[str]] = {}
    for (table, src, dst), rows in view.facts.edges.items():
        if src == dst == "Entity":
            for r in rows.values():
                if r["src"] == eid and r["dst"] in names:
                    related.setdefault((r["role"] or table).lower(), []).append(names[r["dst"]])
    current = sorted({names[b] for a, b in view.relations if a == eid and view.entities[b]["kind"] in CURRENT_KINDS})
    groups = sorted(c["title"] for c in communities.nodes.get("Community", {}).values()
                    if c["level"] == 0 and eid in json.loads(c["members"]))
    days = sorted(
        (
            s
            for s in summaries.nodes.get("Summary", {}).values()
            if s["level"] == "day"
            and any(eid in view.chunk_entities.get(c, ()) or c in view.entity_chunks(eid) for c in s["sources"])
        ),
        key=lambda s: s["period"],
        reverse=True,
    )[:3]
    return {
        "name": row["name"],
        "aliases": sorted(row["aliases"] or []),
        "traits": traits,
        "relations": {k: sorted(set(v)) for k, v in sorted(related.items())},
        "current": current,
        "communities": groups,
        "recent": [{"day": s["period"], "summary": s["text"], "sources": list(s["sources"])} for s in days],
    }


def render(p: dict[str, Any]) -> str:
    lines = [f"# {p['name']}"]
    if p["aliases"]:
        lines.append("Also called: " + ", ".join(p["aliases"]))
    for key, value in sorted(p["traits"].items()):
        lines.append(f"- {key}: {value}")
    for key, values in p["relations"].items():
        lines.append(f"- {key.replace('_', ' ')}: {', '.join(values)}")
    if p["current"]:
        lines.append("Now: " + ", ".join(p["current"]))
    if p["communities"]:
        lines.append("Circles: " + ", ".join(p["communities"]))
    lines += [f"{r['day']}: {r['summary']}" for r in p["recent"]]
    return "\n".join(lines)


def written_portrait(
    view: FactsView, eid: str, sections: dict[str, Any], writer: SleepWriter
) -> tuple[str, list[str]] | None:
    """The LLM's paragraph about the person from their own page, the chunks that mention them
    and recent day summaries, with the chunks it cites."""
    pool = [s for c in view.entity_chunks(eid)[-40:] if c in view.chunks for s in sentences(view.chunks[c]["text"], c)]
    pool += [s for r in sections["recent"] for c in r["sources"][:1] for s in sentences(r["summary"], c, 0.5)]
    return writer.summary(f"{sections['name']}, the person whose memory this is: traits, preferences, "
                          "current projects and recent events", pool)


def build_profile(
    view: FactsView,
    self_name: str | None,
    previous: Overlay,
    communities: Overlay,
    summaries: Overlay,
    created: str,
    writer: SleepWriter | None = None,
) -> tuple[Overlay, ProfileStats | None]:
    """All profile versions so far, plus a new one when the portrait (or who writes it) changed."""
    overlay = Overlay(previous)
    versions = sorted(previous.nodes.get("SelfProfile", {}).values(), key=lambda r: r["version"])
    eid = find_self(view, self_name)
    latest = versions[-1] if versions else None
    stats = None
    if eid is not None:
        sections = portrait(view, eid, communities, summaries)
        facts = json.dumps(sections, sort_keys=True)
        digest = content_hash(eid, facts, writer.model if writer else "extractive")
        text = render(sections)
        if writer and (latest is None or latest["digest"] != digest):
            written = written_portrait(view, eid, sections, writer)
            if written is None:  # the model failed: extractive now, asked again next run
                digest = content_hash(eid, facts, "extractive")
            else:
                text, sections["cited"] = f"{written[0]}\n\n{text}", written[1]
        changed = latest is None or latest["digest"] != digest
        if changed:
            version = (latest["version"] if latest else 0) + 1
            versions.append(
                {
                    "id": f"profile_{eid}_v{version}",
                    "version": version,
                    "created": created,
                    "entity_id": eid,
                    "text": text,
                    "sections": json.dumps(sections, sort_keys=True),
                    "digest": digest,
                }
            )
        stats = ProfileStats(eid, versions[-1]["version"], changed)
    for row in versions:
        overlay.add_node("SelfProfile", {**row, "is_current": row is versions[-1]})
        overlay.link("PORTRAYS", "SelfProfile", "Entity", row["id"], row["entity_id"])
        sections = json.loads(row["sections"])
        for chunk_id in [c for day in sections["recent"] for c in day["sources"]] + sections.get("cited", []):
            overlay.link("CITES", "SelfProfile", "Chunk", row["id"], chunk_id)
    return overlay, stats
