"""The files a Claude export ships beside `conversations.json` that hold a person's own text.

`memories.json` is what Claude remembers about the person (a list of records with a
`conversations_memory` text and `project_memories` per project): one note. `projects.json`
lists projects, each with a description, instructions and documents: one note per project,
typed `project`. A layout mnemo does not know is reported once for the file, never guessed.
"""

from typing import Any

from mnemo.documents import Document, content_hash
from mnemo.errors import SourceError
from mnemo.sources.chats import iso_time, load_json

MEMORIES = "memories.json"
PROJECTS = "projects.json"


def _note(namespace: str, source: str, rel: str, key: str, title: str, body: str, **extra: Any) -> Document:
    return Document(
        id="doc_" + content_hash(namespace, source, rel, key), namespace=namespace, source=source, path=rel,
        title=title, kind="note", body=body, content_hash=content_hash(body), **extra,
    )


def _memory_texts(record: Any) -> list[tuple[str, str]]:
    """(heading, text) of each memory in one record of memories.json."""
    if not isinstance(record, dict):
        return []
    found = []
    if isinstance(record.get("conversations_memory"), str) and record["conversations_memory"].strip():
        found.append(("What Claude remembers", record["conversations_memory"].strip()))
    projects = record.get("project_memories")
    if isinstance(projects, dict):
        found += [
            (f"Project {key}", text.strip())
            for key, text in sorted(projects.items())
            if isinstance(text, str) and text.strip()
        ]
    return found


def parse_memories(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    """memories.json -> one note with a section per memory."""
    loaded = load_json(data, rel)
    records = loaded if isinstance(loaded, list) else [loaded]
    sections = [s for record in records for s in _memory_texts(record)]
    if not sections:
        raise SourceError(
            rel, "Claude memories file with no `conversations_memory` or `project_memories` text (layout not supported)"
        )
    body = "\n\n".join(f"## {heading}\n\n{text}" for heading, text in sections)
    return [_note(namespace, source, rel, "memories", "Claude memories", body, modified=modified)]


def _project_body(project: dict[str, Any]) -> str:
    parts = [str(project.get(key) or "").strip() for key in ("description", "prompt_template")]
    for doc in project.get("docs") or []:
        if isinstance(doc, dict) and str(doc.get("content") or "").strip():
            parts.append(f"## {doc.get('filename') or 'Document'}\n\n{str(doc['content']).strip()}")
    return "\n\n".join(p for p in parts if p)


def parse_projects(data: bytes, namespace: str, source: str, rel: str, modified: str | None) -> list[Document]:
    """projects.json -> one `project` note per project that has a name and some text."""
    loaded = load_json(data, rel)
    if not isinstance(loaded, list):
        raise SourceError(
            rel, f"Claude projects file is a JSON {type(loaded).__name__}, not a list (layout not supported)"
        )
    docs = []
    for project in loaded:
        if not isinstance(project, dict) or not str(project.get("name") or "").strip():
            continue
        body = _project_body(project)
        if body:
            key = str(project.get("uuid") or project["name"])
            docs.append(
                _note(
                    namespace,
                    source,
                    rel,
                    key,
                    str(project["name"]).strip(),
                    body,
                    properties={"type": "project"},
                    created=iso_time(project.get("created_at")),
                    modified=modified,
                )
            )
    return docs
