"""Names and aliases of known entities in a document's text, resolved when several share one.

An alias two entities share is resolved by the note's links and co-mentions, or kept as a
marked candidate of each; a one-word alias that opens a sentence counts only with support.
"""

import re
from collections import defaultdict
from typing import Any

from mnemo.documents import Chunk, Document, normalize_name
from mnemo.extract.fragments import Fragment
from mnemo.extract.grounding import AliasHit, AliasMatcher
from mnemo.extract.timeline import is_speaker_label
from mnemo.facts import GraphFacts, edge
from mnemo.sources.markdown import located_wikilinks, prose

# What may stand before the first word of a sentence: a line start or a sentence end, then
# list and heading marks, numbering, quotes and emphasis.
_OPENING = re.compile(r"(^|[.!?]\s)[\s>#*+\-_~^=\[(\"'“]*(\d+[.)]\s*)?[\s*_~^=\[(\"'“]*$")


def doc_mentions(
    part: Fragment, doc: Document, chunks: list[Chunk], matcher: AliasMatcher, linked: set[str | None],
    own: str | None, entities: dict[str, dict[str, Any]], related: dict[str, set[str]],
) -> None:
    """Names and aliases of known entities in a document's chunks, resolved when shared."""
    located = [_alias_hits(matcher, chunk) for chunk in chunks]
    weak = {(c.id, h[0]) for c, text, hits in located for h in hits if _initial_word_alias(text, h, entities)}
    strong = {h[2][0] for c, _, hits in located for h in hits if len(h[2]) == 1 and (c.id, h[0]) not in weak}
    context = linked | {own} | strong
    for chunk, text, hits in located:
        for start, end, eids in hits:
            if (chunk.id, start) in weak and not context & set(eids):
                continue
            chosen, method = _resolve(eids, linked, context - set(eids), related)
            for eid in chosen:
                if eid == own:
                    continue
                props = {"candidates": sorted(eids)} if len(chosen) > 1 else None
                part.add_edge("MENTIONS", "Chunk", "Entity", edge(
                    "MENTIONS", chunk.id, eid, doc.id, start=start, end=end,
                    surface=text[start:end], method=method, props=props,
                ))


def neighbours(facts: GraphFacts) -> dict[str, set[str]]:
    """Entity id -> the entities it has a typed relation with (either direction)."""
    related: dict[str, set[str]] = defaultdict(set)
    for row in facts.relations():
        related[row["src"]].add(row["dst"])
        related[row["dst"]].add(row["src"])
    return related


def _alias_hits(matcher: AliasMatcher, chunk: Chunk) -> tuple[Chunk, str, list[AliasHit]]:
    """A chunk, its prose and the names in it, outside wikilinks and chat speaker labels."""
    text = prose(chunk.text)
    taken = [(s, e) for _, s, e in located_wikilinks(text)]
    hits = [
        h for h in matcher.hits(text)
        if not any(s < h[1] and h[0] < e for s, e in taken) and not is_speaker_label(chunk, text, h[0], h[1])
    ]
    return chunk, text, hits


def _initial_word_alias(text: str, hit: AliasHit, entities: dict[str, dict[str, Any]]) -> bool:
    """A one-word alias (not a name, not an acronym, not a person's) that opens a sentence,
    a line or a list item: its capital letter says nothing ("Select a folder", "Move
    cursor to the end" are not the `Select` and `Move` tools). Such a hit counts only when
    the note links to the entity or mentions it elsewhere.
    """
    start, end, eids = hit
    surface = text[start:end]
    if " " in surface.strip() or surface.isupper():
        return False
    if any(
        entities[e]["kind"] == "person" or normalize_name(entities[e]["name"]) == normalize_name(surface) for e in eids
    ):
        return False
    return bool(_OPENING.search(text[text.rfind("\n", 0, start) + 1:start]))


def _resolve(
    eids: list[str], linked: set[str | None], context: set[str | None], related: dict[str, set[str]]
) -> tuple[list[str], str]:
    """Which of the entities sharing an alias the text means, and how that was decided.

    One owner: that one. Several: the one the note links to, else the one related to the
    other entities of the note (its links and unambiguous mentions); when that does not
    single one out, every candidate is kept and marked ambiguous, never a silent guess.
    """
    if len(eids) == 1:
        return eids, "alias"
    by_link = [e for e in eids if e in linked]
    if len(by_link) == 1:
        return by_link, "alias_linked"
    by_context = [e for e in eids if related.get(e, set()) & context]
    if len(by_context) == 1:
        return by_context, "alias_context"
    return eids, "alias_ambiguous"

