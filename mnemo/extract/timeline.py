"""One timeline: conversations as Episodes, journal pages and chat days as Days, in order.

- Every conversation (or session, when a document holds several) is an Episode with its
  start and end time, its turn count and its speakers; Episodes are chained by NEXT in
  time order and linked ON_DAY to every day one of their turns was said on.
- Journal pages and daily notes are Days (Note ON_DAY Day); all Days, with those already
  in the facts (days mentioned in text), are chained by NEXT.
- Speakers are entities: the namespace's own person (the `user`/`human` role, or a name
  listed in `self_speakers`) is the `self` entity named in the config; other people are
  Person entities (the one person a note names so, by name or alias, when there is one);
  an AI assistant is an artifact (`ChatGPT`, `Claude`, `Assistant`).
  Speakers are linked SPOKE_IN to their Episodes and each turn chunk SAID_BY its speaker.
"""

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from mnemo.documents import Chunk, Document, Segment, content_hash, entity_id, normalize_name
from mnemo.facts import GraphFacts, edge

SELF_ROLES = ("user", "human")
SILENT_ROLES = ("system", "tool")
ASSISTANT_NAMES = {"chatgpt": "ChatGPT", "claude": "Claude"}
SELF_FALLBACK = "Me"


@dataclass(frozen=True)
class SpeakerMap:
    """Who is who in chats: the namespace's own person and the names that stand for them."""

    self_name: str | None = None
    self_speakers: tuple[str, ...] = ()
    # Normalized name or alias -> the one person entity a note names so ("Ali" -> person_alice_chen).
    people: Mapping[str, str] = field(default_factory=dict)

    @property
    def self_id(self) -> str:
        return entity_id("person", self.self_name or SELF_FALLBACK)

    def knowing(self, facts: GraphFacts) -> "SpeakerMap":
        """This map, resolving speakers to the person entities already in the facts."""
        owners: dict[str, set[str]] = defaultdict(set)
        for row in facts.nodes["Entity"].values():
            if row["kind"] == "person":
                for name in (row["name"], *(row["aliases"] or [])):
                    owners[normalize_name(name)].add(row["id"])
        people = {name: next(iter(ids)) for name, ids in owners.items() if len(ids) == 1}
        return replace(self, people=people)

    def is_self(self, turn: Segment) -> bool:
        """Whether the namespace's own person said this turn."""
        own = {normalize_name(n) for n in (*self.self_speakers, self.self_name or "") if n}
        return turn.role.lower() in SELF_ROLES or normalize_name(turn.speaker) in own

    def entity(self, turn: Segment, fmt: str) -> tuple[str, str, str] | None:
        """(entity id, kind, name) of a turn's speaker; None for system and tool messages."""
        role = turn.role.lower()
        if self.is_self(turn):
            return self.self_id, "person", self.self_name or SELF_FALLBACK
        if role in SILENT_ROLES:
            return None
        if role == "assistant":
            name = ASSISTANT_NAMES.get(fmt, "Assistant")
            return entity_id("artifact", name), "artifact", name
        known = self.people.get(normalize_name(turn.speaker))
        return known or entity_id("person", turn.speaker), "person", turn.speaker.strip()


@dataclass
class _Episode:
    id: str
    doc: Document
    key: str
    turns: list[Segment]

    @property
    def start(self) -> str:
        return min((t.timestamp for t in self.turns if t.timestamp), default="")

    @property
    def end(self) -> str:
        return max((t.timestamp for t in self.turns if t.timestamp), default="")


def episode_id(namespace: str, doc_id: str, key: str) -> str:
    return "episode_" + content_hash(namespace, doc_id, key)


def _episodes(namespace: str, docs: list[Document]) -> list[_Episode]:
    found: dict[str, _Episode] = {}
    for doc in docs:
        for turn in doc.segments:
            if turn.kind != "turn":
                continue
            eid = episode_id(namespace, doc.id, turn.episode)
            found.setdefault(eid, _Episode(eid, doc, turn.episode, [])).turns.append(turn)
    return sorted(found.values(), key=lambda e: (e.start, e.id))


def _fmt(doc: Document) -> str:
    return str(doc.properties.get("format") or doc.source)


def add_speakers(facts: GraphFacts, docs: list[Document], speakers: SpeakerMap) -> None:
    """Entities for every chat speaker that no note already stands for."""
    for doc in docs:
        for turn in doc.segments:
            found = speakers.entity(turn, _fmt(doc)) if turn.kind == "turn" else None
            if found and found[0] not in facts.nodes["Entity"]:
                facts.add_node("Entity", {
                    "id": found[0], "kind": found[1], "name": found[2], "aliases": [], "properties": "{}",
                    "doc_id": "", "origin": "speaker",
                })


def add_episodes(facts: GraphFacts, doc: Document, chunks: list[Chunk], namespace: str, speakers: SpeakerMap) -> None:
    """A document's conversations as Episodes on their days, and its turn chunks IN_EPISODE
    and SAID_BY their speakers."""
    for episode in _episodes(namespace, [doc]):
        _episode(facts, episode, speakers)
        for day in sorted({t.timestamp[:10] for t in episode.turns if t.timestamp}):
            facts.add_edge("ON_DAY", "Episode", "Day", edge("ON_DAY", episode.id, day, doc.id))
    _turn_chunks(facts, [doc], chunks, namespace, speakers)


def add_days(facts: GraphFacts, docs: list[Document]) -> None:
    """Episodes chained by NEXT in time order; every day (of a note, a turn, or mentioned in
    text, already in the facts) a Day, chained by NEXT; notes ON_DAY their day."""
    episodes = sorted(facts.nodes["Episode"].values(), key=lambda e: (e["start_time"], e["id"]))
    for before, after in zip(episodes, episodes[1:]):
        facts.add_edge("NEXT", "Episode", "Episode", edge("NEXT", before["id"], after["id"], ""))
    days = {d.day for d in docs if d.day} | set(facts.nodes["Day"])
    days.update(row["dst"] for row in facts.edges.get(("ON_DAY", "Episode", "Day"), {}).values())
    ordered = sorted(days)
    for day in ordered:
        facts.add_node("Day", {"id": day})
    for day, next_day in zip(ordered, ordered[1:]):
        facts.add_edge("NEXT", "Day", "Day", edge("NEXT", day, next_day, ""))
    for doc in docs:
        if doc.day:
            facts.add_edge("ON_DAY", "Note", "Day", edge("ON_DAY", doc.id, doc.day, doc.id))


def _episode(facts: GraphFacts, episode: _Episode, speakers: SpeakerMap) -> None:
    doc = episode.doc
    said: dict[str, int] = defaultdict(int)
    for turn in episode.turns:
        found = speakers.entity(turn, _fmt(doc))
        if found:
            said[found[0]] += 1
    title = f"{doc.title} · {episode.key}" if episode.key else doc.title
    facts.add_node("Episode", {
        "id": episode.id, "doc_id": doc.id, "title": title, "source": doc.source, "start_time": episode.start,
        "end_time": episode.end, "turns": len(episode.turns), "speakers": sorted({t.speaker for t in episode.turns}),
    })
    facts.add_edge("HAS_EPISODE", "Note", "Episode", edge("HAS_EPISODE", doc.id, episode.id, doc.id))
    for eid, count in sorted(said.items()):
        facts.add_edge("SPOKE_IN", "Entity", "Episode", edge(
            "SPOKE_IN", eid, episode.id, doc.id, props={"turns": count}, valid_from=episode.start, valid_to=episode.end,
        ))


def _turn_chunks(
    facts: GraphFacts, docs: list[Document], chunks: list[Chunk], namespace: str, speakers: SpeakerMap
) -> None:
    """Each turn chunk IN_EPISODE its episode and SAID_BY each of its speakers."""
    turns: dict[tuple[str, str], tuple[Segment, str]] = {
        (d.id, s.id): (s, _fmt(d)) for d in docs for s in d.segments if s.kind == "turn"
    }
    for chunk in chunks:
        ids = chunk.metadata.get("turn_ids")
        if not ids:
            continue
        eid = episode_id(namespace, chunk.doc_id, str(chunk.metadata.get("episode") or ""))
        if eid in facts.nodes["Episode"]:
            facts.add_edge("IN_EPISODE", "Chunk", "Episode", edge("IN_EPISODE", chunk.id, eid, chunk.doc_id))
        for turn_id in ids:
            turn = turns.get((chunk.doc_id, turn_id))
            if turn is None:
                continue
            found = speakers.entity(*turn)
            if found:
                facts.add_edge(
                    "SAID_BY",
                    "Chunk",
                    "Entity",
                    edge(
                        "SAID_BY",
                        chunk.id,
                        found[0],
                        chunk.doc_id,
                        surface=turn[0].speaker,
                        observed_at=turn[0].timestamp or "",
                    ),
                )


def is_speaker_label(chunk: Chunk, text: str, start: int, end: int) -> bool:
    """True for the `Name:` that opens a turn in a chat chunk (who spoke, not a mention)."""
    return (
        bool(chunk.metadata.get("turn_ids")) and text.startswith(":", end) and (start == 0 or text[start - 1] == "\n")
    )
