"""Chunking of structured documents: chat turns and outline blocks.

Turns: a chunk is one turn, or a small window of consecutive short turns of the same
episode and branch; a long turn is split into several chunks. Speakers, roles, turn ids
and timestamps go into the chunk's metadata, and the chunk's timestamp is its first turn's.
A segment whose meta has `standalone: true` always gets a chunk of its own (so evaluations
can map a chunk back to exactly one turn).

Blocks: a chunk is one block (long blocks split), headed by its ancestors' first lines,
with `block_id`, `parent_block` and `parent_chunk` in its metadata; `((uuid))` block
references are replaced by the referenced block's text.
"""

import re
from itertools import groupby
from typing import Any

from mnemo.documents import Chunk, Document, Segment, _split_long, content_hash, written
from mnemo.extract.relative_dates import turn_dates
from mnemo.sources.logseq import BLOCK_REF

WINDOW_WORDS = 80
WINDOW_TURNS = 4
_BREADCRUMB_CHARS = 60


def block_index(docs: list[Document]) -> dict[str, str]:
    """Block uuid -> the block's text, over every outline document of a namespace."""
    return {s.id: s.text for d in docs for s in d.segments if s.kind == "block" and not s.id.startswith("block-")}


def resolve_refs(text: str, blocks: dict[str, str], depth: int = 2) -> str:
    """`((uuid))` -> the referenced block's text (references inside it resolved to `depth`)."""
    def replace(match: re.Match[str]) -> str:
        found = blocks.get(match.group(1))
        if found is None:
            return match.group(0)
        return resolve_refs(found, blocks, depth - 1) if depth > 1 else found
    return BLOCK_REF.sub(replace, text)


def referenced(doc: Document, blocks: dict[str, str]) -> dict[str, str]:
    """The blocks this document references, with their current text (for change detection)."""
    ids = {m for s in doc.segments for m in BLOCK_REF.findall(s.text)}
    return {i: blocks[i] for i in sorted(ids) if i in blocks}


def chunk_segments(doc: Document, max_words: int, blocks: dict[str, str] | None = None) -> list[Chunk]:
    """Chunks of a document that has segments (turns or blocks)."""
    turns = [s for s in doc.segments if s.kind == "turn"]
    chunks = _turn_chunks(doc, turns, max_words) + _block_chunks(
        doc, [s for s in doc.segments if s.kind == "block"], max_words, blocks or {}
    )
    for position, chunk in enumerate(chunks):
        chunk.position = position
    return chunks


def _new_chunk(
    doc: Document, key: str, text: str, heading: str, timestamp: str | None, metadata: dict[str, Any]
) -> Chunk:
    return Chunk(
        id="chunk_" + content_hash(doc.namespace, doc.id, key, heading, text), namespace=doc.namespace,
        doc_id=doc.id, position=0, heading=heading, text=text, path=doc.path, title=doc.title, kind=doc.kind,
        timestamp=timestamp or written(doc, heading, text), metadata=metadata,
    )


def _link(chunks: list[Chunk]) -> list[Chunk]:
    for before, after in zip(chunks, chunks[1:]):
        after.prev_id = before.id
        before.next_id = after.id
    return chunks


def _windows(turns: list[Segment], max_words: int) -> list[list[Segment]]:
    """Consecutive short turns packed together; long or standalone turns alone."""
    windows: list[list[Segment]] = []
    limit = min(WINDOW_WORDS, max_words)
    for turn in turns:
        words = len(turn.text.split())
        last = windows[-1] if windows else None
        if (
            last is not None and len(last) < WINDOW_TURNS and not turn.meta.get("standalone")
            and not last[-1].meta.get("standalone") and sum(len(t.text.split()) for t in last) + words <= limit
        ):
            last.append(turn)
        else:
            windows.append([turn])
    return windows


def _turn_metadata(window: list[Segment]) -> dict[str, Any]:
    first = window[0]
    metadata: dict[str, Any] = {
        "speaker": first.speaker, "speakers": list(dict.fromkeys(t.speaker for t in window)),
        "roles": list(dict.fromkeys(t.role for t in window)), "turn_ids": [t.id for t in window],
        "timestamp": first.timestamp, "end": window[-1].timestamp, "episode": first.episode, "branch": first.branch,
    }
    if len(window) == 1:
        metadata.update({k: v for k, v in first.meta.items() if k not in metadata})
    dates = [d for t in window for d in turn_dates(t.text, t.timestamp)]
    if dates:
        metadata["dates"] = dates  # what the turns' relative and written dates mean (`extract.relative_dates`)
    return metadata


def _turn_chunks(doc: Document, turns: list[Segment], max_words: int) -> list[Chunk]:
    chunks: list[Chunk] = []
    for _, group in groupby(turns, key=lambda t: (t.episode, t.branch)):
        run: list[Chunk] = []
        for window in _windows(list(group), max_words):
            text = "\n\n".join(f"{t.speaker}: {t.text}" for t in window)
            pieces = _split_long(text, max_words) if len(window) == 1 else [text]
            key = ",".join(t.id for t in window)
            for index, piece in enumerate(pieces):
                metadata = _turn_metadata(window) | ({"piece": index} if len(pieces) > 1 else {})
                run.append(_new_chunk(doc, f"{key}#{index}", piece, window[0].episode, window[0].timestamp, metadata))
        chunks += _link(run)
    return chunks


def _breadcrumb(segment: Segment, by_id: dict[str, Segment]) -> str:
    names: list[str] = []
    parent = by_id.get(segment.parent or "")
    while parent is not None and len(names) < 8:
        first = parent.text.strip().splitlines()[0] if parent.text.strip() else ""
        if first:
            names.append(first.lstrip("#").strip()[:_BREADCRUMB_CHARS])
        parent = by_id.get(parent.parent or "")
    return " > ".join(reversed(names))


def _block_chunks(doc: Document, blocks: list[Segment], max_words: int, refs: dict[str, str]) -> list[Chunk]:
    by_id = {b.id: b for b in blocks}
    chunk_of: dict[str, str] = {}
    chunks: list[Chunk] = []
    for block in blocks:
        text = resolve_refs(block.text, refs).strip()
        parent = by_id.get(block.parent or "")
        while parent is not None and parent.id not in chunk_of:
            parent = by_id.get(parent.parent or "")
        if not text:
            continue
        heading = _breadcrumb(block, by_id)
        for index, piece in enumerate(_split_long(text, max_words)):
            metadata = {
                "block_id": block.id,
                "parent_block": block.parent,
                "parent_chunk": chunk_of.get(parent.id) if parent else None,
                "depth": block.depth,
                **{k: v for k, v in block.meta.items()},
            }
            chunk = _new_chunk(doc, f"{block.id}#{index}", piece, heading, block.timestamp, metadata)
            chunk_of.setdefault(block.id, chunk.id)
            chunks.append(chunk)
    return _link(chunks)
