"""The graph's tables: node tables with their columns and Kùzu types, and the structural edge tables."""

from typing import Any

import polars as pl

from mnemo.facts import EDGE_COLUMNS

NODE_SCHEMAS: dict[str, dict[str, str]] = {
    "Note": {
        "id": "STRING",
        "path": "STRING",
        "title": "STRING",
        "kind": "STRING",
        "source": "STRING",
        "tags": "STRING[]",
        "properties": "STRING",
        "day": "STRING",
        "created": "STRING",
        "content_hash": "STRING",
        "present": "BOOLEAN",
        "h": "STRING",
    },
    "Chunk": {
        "id": "STRING",
        "doc_id": "STRING",
        "position": "INT64",
        "heading": "STRING",
        "text": "STRING",
        "timestamp": "STRING",
        "h": "STRING",
    },
    "Entity": {
        "id": "STRING",
        "kind": "STRING",
        "name": "STRING",
        "aliases": "STRING[]",
        "properties": "STRING",
        "doc_id": "STRING",
        "origin": "STRING",
        "h": "STRING",
    },
    "Alias": {
        "id": "STRING",
        "name": "STRING",
        "norm": "STRING",
        "entity_id": "STRING",
        "doc_id": "STRING",
        "h": "STRING",
    },
    "Day": {"id": "STRING", "h": "STRING"},
    "Episode": {
        "id": "STRING",
        "doc_id": "STRING",
        "title": "STRING",
        "source": "STRING",
        "start_time": "STRING",
        "end_time": "STRING",
        "turns": "INT64",
        "speakers": "STRING[]",
        "h": "STRING",
    },
    # sleep mode (mnemo/sleep): overlays on the extraction facts
    "Community": {
        "id": "STRING",
        "level": "INT64",
        "title": "STRING",
        "summary": "STRING",
        "key_entities": "STRING[]",
        "members": "STRING",
        "member_count": "INT64",
        "sources": "STRING[]",
        "digest": "STRING",
        "h": "STRING",
        "cohesion": "DOUBLE",
    },
    "Summary": {
        "id": "STRING",
        "level": "STRING",
        "period": "STRING",
        "period_start": "STRING",
        "period_end": "STRING",
        "text": "STRING",
        "eager": "BOOLEAN",
        "sources": "STRING[]",
        "digest": "STRING",
        "h": "STRING",
    },
    "Salience": {
        "id": "STRING",
        "item_id": "STRING",
        "item_kind": "STRING",
        "accesses": "INT64",
        "last_access": "STRING",
        "strength": "DOUBLE",
        "retention": "DOUBLE",
        "mentions": "INT64",
        "pagerank": "DOUBLE",
        "score": "DOUBLE",
        "faded": "BOOLEAN",
        "top_of_mind": "BOOLEAN",
        "h": "STRING",
    },
    "SelfProfile": {
        "id": "STRING",
        "version": "INT64",
        "created": "STRING",
        "entity_id": "STRING",
        "text": "STRING",
        "sections": "STRING",
        "digest": "STRING",
        "is_current": "BOOLEAN",
        "h": "STRING",
    },
}


STRUCTURAL_EDGES: dict[str, tuple[tuple[str, str], ...]] = {
    "HAS_CHUNK": (("Note", "Chunk"),),
    "NEXT": (("Chunk", "Chunk"), ("Day", "Day"), ("Episode", "Episode")),
    "LINKS_TO": (("Note", "Note"),),
    "MENTIONS": (("Chunk", "Entity"),),
    "PAGE_OF": (("Note", "Entity"),),
    "ON_DAY": (("Note", "Day"), ("Episode", "Day")),
    "ALIAS_OF": (("Alias", "Entity"),),
    "HAS_EPISODE": (("Note", "Episode"),),
    "IN_EPISODE": (("Chunk", "Episode"),),
    "SPOKE_IN": (("Entity", "Episode"),),
    "MENTIONS_DAY": (("Chunk", "Day"),),
    "SAID_BY": (("Chunk", "Entity"),),
    "IN_COMMUNITY": (("Entity", "Community"),),
    "SUBCOMMUNITY_OF": (("Community", "Community"),),
    "CITES": (("Community", "Chunk"), ("Summary", "Chunk"), ("SelfProfile", "Chunk")),
    "SUMMARIZES": (("Summary", "Day"), ("Summary", "Summary")),
    "SUMMARY_MENTIONS": (("Summary", "Entity"),),
    "SALIENCE_OF": (("Salience", "Entity"), ("Salience", "Chunk")),
    "PROMOTED_TO": (("Chunk", "Entity"),),
    "PORTRAYS": (("SelfProfile", "Entity"),),
}


# Columns added to a node table after graphs were made with it: a graph that lacks one gets it
# (null in its old rows) when it is opened for writing.
GROWN_COLUMNS = {"Community": ("cohesion",)}


EDGE_TYPES = {"span_start": "INT64", "span_end": "INT64"}


EDGE_PROPS = [c for c in EDGE_COLUMNS if c not in ("src", "dst")] + ["run_id"]


def polars_type(kind: str) -> Any:
    return {
        "STRING": pl.String,
        "STRING[]": pl.List(pl.String),
        "INT64": pl.Int64,
        "BOOLEAN": pl.Boolean,
        "DOUBLE": pl.Float64,
    }[kind]
