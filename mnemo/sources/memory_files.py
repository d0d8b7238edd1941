"""A memory's inbox file: the record `remember` and `save` write, and the Documents ingest makes of it.

Each memory is one JSON file under `<data_dir>/<namespace>/inbox/`, named by its id; the ingest
job reads them through the `memories` source (every namespace has it implicitly) and turns each
into a note Document plus one small Document per entity it names, so the structural extractor
makes the entities, their properties and relations. What writes memories (remember, save,
append, purge) is the `mnemo.memories` package; this module is the file format the scan, recall
and forget read below it.
"""

import datetime as dt
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mnemo.config import SourceConfig
from mnemo.documents import Document, content_hash
from mnemo.errors import MnemoError, SourceError
from mnemo.refs import EntityRef, parse_ref
from mnemo.sources.markdown import property_links
from mnemo.stores import durable
from mnemo.stores.kept import INBOX_FOLDER

SUFFIXES = (".json",)
INBOX = INBOX_FOLDER
MEMORY_SOURCE = "memories"  # the name of every namespace's inbox source (`inbox_source`)
GLOBAL = "global"
_TITLED_ID = re.compile(r"mem_[0-9a-f]{16}_[0-9a-f]{8}")
_MEMORY_ID = re.compile(r"mem_[0-9a-f]{24}|mem_[0-9a-f]{16}_[0-9a-f]{8}")


class MemoryFileError(MnemoError, ValueError):
    """An inbox file that is not a memory mnemo wrote: its id is not a memory id, or not its file's name."""


def titled_memory_id(namespace: str, scope: str, slug: str, created: str) -> str:
    """A titled memory's id: a digest of its scope and slug (found by `titled_id_glob`), then one
    of its first save's time (so that a title saved again after a forget is a new memory)."""
    return f"mem_{content_hash(scope, slug)[:16]}_{content_hash(namespace, created)[:8]}"


def titled_id_glob(scope: str, slug: str) -> str:
    return f"mem_{content_hash(scope, slug)[:16]}_*.json"


def is_titled(memory_id: str) -> bool:
    """Whether the id is a titled memory's, whose text `save` and `append` may rewrite."""
    return bool(_TITLED_ID.fullmatch(memory_id))


def is_memory_id(memory_id: object) -> bool:
    """Whether the value is a memory id (`mem_` and hex digits, as `new_memory` and
    `titled_memory_id` make them): the only ids that become an inbox file's name."""
    return isinstance(memory_id, str) and bool(_MEMORY_ID.fullmatch(memory_id))


@dataclass
class Memory:
    """One remembered thing. `status` is `processing` until ingest has made it recallable."""

    id: str
    namespace: str
    text: str
    created: str
    entities: list[EntityRef] = field(default_factory=list)
    status: str = "processing"
    expires_at: str | None = None  # ISO time (UTC); recall never returns the memory after it
    scope: str = GLOBAL  # recall returns it when asked for this scope (`check_scope`)
    title: str | None = None  # a titled memory (`save`): unique by `slug` within its scope
    slug: str | None = None
    history: list[dict[str, str]] = field(default_factory=list)  # earlier texts, oldest first: text, until

    def expired(self, now: dt.datetime | None = None) -> bool:
        return self.expires_at is not None and self.expires_at <= iso_utc(now or dt.datetime.now(dt.UTC))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def inbox_dir(root: Path) -> Path:
    return Path(root) / INBOX


def inbox_source(root: Path) -> SourceConfig:
    """The implicit source every namespace has: its own inbox folder."""
    return SourceConfig(kind="memories", path=inbox_dir(root), name=MEMORY_SOURCE)


def iso_utc(moment: dt.datetime) -> str:
    """The moment as an ISO time in UTC, to the microsecond (how memory files keep times)."""
    return moment.astimezone(dt.UTC).isoformat(timespec="microseconds")


def store_memory(root: Path, memory: Memory) -> Memory:
    """Write the memory to the inbox atomically (status `processing` until made recallable)."""
    if not is_memory_id(memory.id):
        raise MemoryFileError(f"invalid memory id {memory.id!r}: not written (a memory id is mem_ and hex digits)")
    memory.status = "processing"
    durable.write_json(inbox_dir(root) / f"{memory.id}.json", memory.to_dict(), "inbox:memory")
    return memory


def read_memory(path: Path) -> Memory:
    """The memory in an inbox file; a MemoryFileError (a ValueError) when its id is not a memory
    id or not the file's name, since the id names the file the memory is written back to."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise MemoryFileError(f"{path}: not a memory file (not a JSON object)")
    check_memory_file_id(path.name, data.get("id"))
    entities = [EntityRef(**e) for e in data.pop("entities", [])]
    return Memory(**{**data, "entities": entities})


def check_memory_file_id(file_name: str, memory_id: object) -> str:
    """The id of the memory in the inbox file `file_name`, when it is a memory id and names the file."""
    if not is_memory_id(memory_id):
        raise MemoryFileError(f"{file_name}: invalid memory id {memory_id!r} (a memory id is mem_ and hex digits)")
    if file_name != f"{memory_id}.json":
        raise MemoryFileError(f"{file_name}: its memory id {memory_id!r} is not its file's name")
    return str(memory_id)


def memory_doc_id(namespace: str, memory_id: str) -> str:
    return "doc_" + content_hash(namespace, INBOX, memory_id)


def entity_doc_id(memory: Memory, entity: EntityRef) -> str:
    """The id of the small document a memory makes for an entity it names."""
    return "doc_" + content_hash(memory.namespace, INBOX, memory.id, entity.ref)


def memory_doc_ids(memory: Memory) -> list[str]:
    """Every document a memory becomes: its note and one per entity it names."""
    return [memory_doc_id(memory.namespace, memory.id)] + [entity_doc_id(memory, e) for e in memory.entities]


def _entity_document(memory: Memory, entity: EntityRef, source: str, rel: str) -> Document:
    properties: dict[str, Any] = {"type": entity.kind, **entity.properties}
    for relation in entity.relations:
        target = parse_ref(relation["target"])
        properties.setdefault(relation["role"], [])
        properties[relation["role"]].append(f"[[{target.slug}]]")
    aliases = [str(entity.properties["name"])] if isinstance(entity.properties.get("name"), str) else []
    return Document(
        id=entity_doc_id(memory, entity), namespace=memory.namespace,
        source=source, path=f"{rel}#{entity.ref}", title=entity.slug, kind="note", body="",
        content_hash=content_hash(json.dumps(properties, sort_keys=True, default=str)), aliases=aliases,
        properties=properties, links=property_links(properties), created=memory.created, modified=memory.created,
    )


def parse_memory(text: str, *, namespace: str, source: str, rel_path: str, modified: str | None) -> list[Document]:
    """A memory file -> the memory's note and one Document per entity it names; nothing once the
    memory has expired (it is never ingested, and an ingested one leaves the stores)."""
    try:
        data = json.loads(text)
        check_memory_file_id(Path(rel_path).name, data.get("id") if isinstance(data, dict) else None)
        memory = Memory(**{**data, "entities": [EntityRef(**e) for e in data.get("entities", [])]})
    except (ValueError, TypeError) as exc:
        raise SourceError(rel_path, f"not a memory file: {exc}") from None
    return [] if memory.expired() else memory_documents(memory, namespace, source, rel_path, modified)


def lapsed(docs: list[Document], now: dt.datetime | None = None) -> bool:
    """Whether these documents of a memory file (as an earlier scan parsed it) are of a memory
    that has expired since: the scan reads the file again, and it gives no documents now."""
    moment = iso_utc(now or dt.datetime.now(dt.UTC))
    return any(isinstance(d.properties.get("expires_at"), str) and d.properties["expires_at"] <= moment for d in docs)


def _visibility(memory: Memory) -> dict[str, str | None]:
    """What decides when recall returns the memory, kept on its passages (`MEMORY_METADATA`)."""
    return {"expires_at": memory.expires_at, "scope": None if memory.scope == GLOBAL else memory.scope}


MEMORY_METADATA = ("expires_at", "scope")


def memory_documents(
    memory: Memory, namespace: str, source: str, rel_path: str, modified: str | None
) -> list[Document]:
    """The memory's note and one Document per entity it names."""
    note = Document(
        id=memory_doc_id(namespace, memory.id), namespace=namespace, source=source, path=rel_path,
        title=memory.title or f"Memory {memory.created[:16].replace('T', ' ')}", kind="note", body=memory.text,
        content_hash=content_hash(memory.text),
        properties={"memory_id": memory.id, **{k: v for k, v in _visibility(memory).items() if v}},
        created=memory.created, modified=modified, day=memory.created[:10],
    )
    return [note] + [_entity_document(memory, e, source, rel_path) for e in memory.entities]


def pending_memories(root: Path, namespace: str, ingested_docs: set[str]) -> int:
    """How many inbox memories no ingest run has processed yet."""
    folder = inbox_dir(root)
    if not folder.is_dir():
        return 0
    waiting = [p for p in folder.glob("mem_*.json") if memory_doc_id(namespace, p.stem) not in ingested_docs]
    return sum(1 for p in waiting if not _expired_file(p))


def _expired_file(path: Path) -> bool:
    try:
        return read_memory(path).expired()
    except (OSError, ValueError, TypeError):
        return False


def inbox_fingerprints(data_dir: Path) -> dict[str, str]:
    """namespace -> a digest of its inbox files (names, sizes, mtimes); only non-empty inboxes."""
    out: dict[str, str] = {}
    root = Path(data_dir)
    if not root.is_dir():
        return out
    for folder in sorted(root.glob(f"*/{INBOX}")):
        files = sorted(folder.glob("mem_*.json"))
        if files:
            stats = [(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in files]
            out[folder.parent.name] = content_hash(json.dumps(stats))
    return out
