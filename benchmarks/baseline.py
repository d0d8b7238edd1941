"""The plain-RAG peer: what a person would build without mnemo.

Read every note, drop the frontmatter, split it at Markdown headings and pack each
section's paragraphs into passages of at most `max_words` words (as a header splitter
followed by a recursive splitter would); read every chat conversation (JSONL exports, one
message per line) and pack its messages, as `role: content` paragraphs, the same way. Embed
them with the same embedder, write them to one LanceDB table with a full-text index, and
answer with the same hybrid (vector + BM25, RRF) search. No graph, no extraction, no
incremental bookkeeping, no consolidation.

The peer reads the same sources mnemo is given: a comparison where one side skips the
chats would credit mnemo's extra work to the graph.
"""

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import frontmatter
import lancedb
import pyarrow as pa
from lancedb.rerankers import RRFReranker

from mnemo.stores.embedders import Embedder

TEXT = "embed_text"
HEADING = re.compile(r"^#{1,6}\s")


def passages(body: str, max_words: int) -> list[str]:
    """Paragraphs packed into passages of at most max_words words (long ones cut)."""
    out: list[str] = []
    current: list[str] = []
    for paragraph in (p.strip() for p in body.split("\n\n")):
        words = paragraph.split()
        while len(words) > max_words:
            out.append(" ".join(words[:max_words]))
            words = words[max_words:]
        if current and len(current) + len(words) > max_words:
            out.append(" ".join(current))
            current = []
        current.extend(words)
    if current:
        out.append(" ".join(current))
    return out


def sections(body: str) -> list[tuple[str, str]]:
    """(heading, text) pairs: the body split at Markdown heading lines."""
    out: list[tuple[str, list[str]]] = [("", [])]
    for line in body.splitlines():
        if HEADING.match(line):
            out.append((line.lstrip("#").strip(), []))
        else:
            out[-1][1].append(line)
    return [(heading, "\n".join(lines)) for heading, lines in out if "".join(lines).strip()]


def _chat_rows(chats: Path, max_words: int, start: int) -> list[dict[str, Any]]:
    """Each conversation's messages as `role: content` paragraphs, packed into passages."""
    rows: list[dict[str, Any]] = []
    for path in sorted(chats.rglob("*.jsonl")):
        conversations: dict[str, list[str]] = defaultdict(list)
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                message = json.loads(line)
                conversations[message.get("conversation", path.stem)].append(f"{message['role']}: {message['content']}")
        for name, messages in conversations.items():
            for text in passages("\n\n".join(messages), max_words):
                rows.append({"id": f"{path.name}#{start + len(rows)}", "path": path.name, "text": text, TEXT: f"{name}\n{text}"})
    return rows


def _rows(vault: Path, max_words: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        body = frontmatter.loads(path.read_text(encoding="utf-8")).content
        for heading, section in sections(body):
            for text in passages(section, max_words):
                head = " > ".join(p for p in (path.stem, heading) if p)
                rows.append({"id": f"{rel}#{len(rows)}", "path": rel, "text": text, TEXT: f"{head}\n{text}"})
    return rows


def ingest(vault: Path, db_path: Path, embedder: Embedder, max_words: int = 180, batch: int = 512,
           chats: Path | None = None) -> dict[str, Any]:
    """Build the plain-RAG table from scratch (the vault's notes, and the chats when given);
    return its size."""
    rows = _rows(vault, max_words)
    notes = len(rows)
    if chats is not None and chats.is_dir():
        rows += _chat_rows(chats, max_words, len(rows))
    db = lancedb.connect(str(db_path))
    table = None
    for start in range(0, len(rows), batch):
        part = rows[start:start + batch]
        vectors = embedder.encode([r[TEXT] for r in part])
        data = pa.Table.from_pylist(part).append_column("vector", pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), embedder.dim))
        table = db.create_table("chunks", data=data, mode="overwrite") if table is None else table
        if start:
            table.add(data)
    if table is not None:
        table.create_fts_index(TEXT, replace=True)
    return {"chunks": len(rows), "note_passages": notes, "chat_passages": len(rows) - notes}


def recall(db_path: Path, embedder: Embedder, k: int = 10) -> Any:
    """The same hybrid query mnemo's eager recall makes, on the plain table."""
    table = lancedb.connect(str(db_path)).open_table("chunks")

    def search(query: str) -> list[dict[str, Any]]:
        vector = embedder.encode_query([query])[0]
        return table.search(query_type="hybrid", fts_columns=TEXT).vector(vector).text(query).rerank(RRFReranker()).limit(k).to_list()

    return search
