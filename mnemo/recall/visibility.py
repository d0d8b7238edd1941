"""What a caller may see of a namespace's graph: everything but what comes only from memories it
may not see — those of a scope it did not ask for (`project:x`, `session:y`) and expired ones.

A memory becomes a note and one small page per entity it names; the graph keeps which document
each page, mention and relation came from. An entity is hidden when everything it comes from is
hidden memories' documents (`memory_only`); an entity also named by a note or a visible memory
stays, with only the relations and properties of what the caller sees. Timeline rows (notes)
are hidden by their document id.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from mnemo.recall.passage_visibility import now_iso
from mnemo.sources.memory_files import inbox_dir, memory_doc_ids, read_memory
from mnemo.stores.files import file_stamp


@dataclass(frozen=True)
class InboxMemory:
    """What decides who sees a memory's documents."""

    scope: str
    expires_at: str | None
    docs: tuple[str, ...]


@dataclass
class InboxScopes:
    """The scope and expiry of every inbox memory of a namespace, looked at again only when the
    inbox folder changed (a memory written, saved again or deleted replaces or removes a file),
    and then read again only from the files that changed."""

    root: Path
    _stamp: list[int] | None = None
    _files: dict[str, tuple[list[int] | None, InboxMemory | None]] = field(default_factory=dict)

    def hidden_docs(self, scopes: frozenset[str], now: str | None = None) -> frozenset[str]:
        """The documents of the memories of scopes not in `scopes` and of expired memories."""
        moment = now or now_iso()
        hidden = [m for m in self._current() if m.scope not in scopes or (m.expires_at or "~") <= moment]
        return frozenset(doc for m in hidden for doc in m.docs)

    def _current(self) -> list[InboxMemory]:
        folder = inbox_dir(self.root)
        stamp = file_stamp(folder)
        if stamp is None:
            return []
        if stamp != self._stamp:
            self._files, self._stamp = _read_inbox(folder, self._files), stamp
        return [m for _, m in self._files.values() if m is not None]


def _read_inbox(
    folder: Path, known: dict[str, tuple[list[int] | None, InboxMemory | None]]
) -> dict[str, tuple[list[int] | None, InboxMemory | None]]:
    """Each memory file's stamp and memory (None: not a memory), read again when its stamp changed."""
    found: dict[str, tuple[list[int] | None, InboxMemory | None]] = {}
    for path in sorted(folder.glob("mem_*.json")):
        stamp = file_stamp(path)
        if path.name in known and known[path.name][0] == stamp:
            found[path.name] = known[path.name]
            continue
        try:
            memory = read_memory(path)
        except (OSError, ValueError, TypeError):
            continue  # forgotten meanwhile, or not a memory: the scan reports the file
        found[path.name] = (stamp, InboxMemory(memory.scope, memory.expires_at, tuple(memory_doc_ids(memory))))
    return found


def memory_only(provenance: Iterable[tuple[str, str | None]], memory_docs: set[str]) -> dict[str, frozenset[str]]:
    """Entity -> the memory documents it comes from, for the entities that come from nothing else
    (`provenance`: (entity, document) pairs of its pages, mentions and relations)."""
    found: dict[str, set[str]] = {}
    other: set[str] = set()
    for entity, doc in provenance:
        if not doc:
            continue
        if doc in memory_docs:
            found.setdefault(entity, set()).add(doc)
        else:
            other.add(entity)
    return {entity: frozenset(docs) for entity, docs in found.items() if entity not in other}


def hidden_entities(only: dict[str, frozenset[str]], ids: Iterable[str], hidden_docs: frozenset[str]) -> set[str]:
    """The entities among `ids` that come only from hidden memories' documents."""
    if not hidden_docs:
        return set()
    return {e for e in ids if e in only and only[e] <= hidden_docs}


@dataclass(frozen=True)
class Hidden:
    """What one caller may not see: the hidden memories' documents, and the entities that come
    only from memories (`GraphView.memory_only`), hidden when all their documents are."""

    docs: frozenset[str] = frozenset()
    only: dict[str, frozenset[str]] = field(default_factory=dict)

    def entity(self, entity_id: str) -> bool:
        return bool(hidden_entities(self.only, [entity_id], self.docs))

    def doc(self, doc_id: str | None) -> bool:
        return doc_id in self.docs
