"""Property cards: the one passage of a note that holds only properties.

A typed note (a movie with `genre: [[Sci-fi]]`, `director: [[Ridley Scott]]` and no body) cuts
into no passage, so recall could never return it. Such a note gets one passage made from what the
owner wrote: its title, then each property as `key: value.` in the note's order, wikilinks as
their shown text, lists joined with commas. mnemo's own `mnemo-*` properties and values that are
not text (nested mappings) are left out; nothing else is added. The passage's metadata says
`card: properties`, so result surfaces can tell it from a passage of the body.
"""

import re
from typing import Any

from mnemo.documents import Chunk, Document, content_hash, written

CARD = "properties"
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]+?))?\]\]")
_OWN_PREFIX = "mnemo-"


def property_card(doc: Document) -> Chunk | None:
    """The card of a Markdown note (a `.md` file) with readable properties; None for anything else
    (a memory's entity documents are not the owner's notes, and an empty note has nothing to say)."""
    if not doc.path.endswith(".md"):
        return None
    lines = [f"{key}: {text}." for key, text in _readable(doc.properties)]
    if not lines:
        return None
    text = " ".join([f"{doc.title}."] + lines)
    return Chunk(
        id="chunk_" + content_hash(doc.namespace, doc.id, "", text, "0"), namespace=doc.namespace,
        doc_id=doc.id, position=0, heading="", text=text, path=doc.path, title=doc.title, kind=doc.kind,
        timestamp=written(doc, "", text), metadata={"card": CARD},
    )


def _readable(properties: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, value as text) for each property the owner wrote that reads as text."""
    pairs = []
    for key, value in properties.items():
        if key.lower().startswith(_OWN_PREFIX):
            continue
        text = ", ".join(_texts(value))
        if text:
            pairs.append((key, text))
    return pairs


def _texts(value: Any) -> list[str]:
    """A value as its pieces of text: scalars as written, lists flattened, mappings left out."""
    if value is None or isinstance(value, dict):
        return []
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _texts(item)]
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), str(value)).strip()
    return [text] if text else []
