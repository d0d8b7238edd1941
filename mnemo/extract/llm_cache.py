"""What the LLM extractor has already answered, so unchanged chunks are never sent again.

A cache entry is keyed by the chunk's text hash, the ontology version, the prompt version
and the model. Each ontology version the cache has seen is kept as a snapshot, so that a
version change can tell which cached extractions it affects. Chunks that failed are kept
in a pending list until a later run extracts them.
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import polars as pl

from mnemo.documents import content_hash
from mnemo.stores import durable
from mnemo.stores.files import write_parquet

_SCHEMA = {
    "key": pl.String, "chunk_hash": pl.String, "ontology_version": pl.String, "prompt_version": pl.String,
    "model": pl.String, "extraction": pl.String, "dropped": pl.Int64,
}


@dataclass
class CacheEntry:
    key: str
    chunk_hash: str
    ontology_version: str
    prompt_version: str
    model: str
    extraction: str
    dropped: int = 0

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.extraction)


def cache_key(chunk_hash: str, ontology_version: str, prompt_version: str, model: str) -> str:
    return content_hash(chunk_hash, ontology_version, prompt_version, model)


def _write_json(path: Path, value: Any) -> None:
    durable.write_json(path, value, f"llm_cache:{path.name}", sort_keys=True)


class ExtractionCache:
    """The namespace's `llm/` folder: cache entries, ontology snapshots, pending chunks."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.entries: dict[str, CacheEntry] = {}
        path = self.root / "cache.parquet"
        if path.exists():
            self.entries = {r["key"]: CacheEntry(**r) for r in pl.read_parquet(path).to_dicts()}

    def get(self, key: str) -> CacheEntry | None:
        return self.entries.get(key)

    def put(self, entry: CacheEntry) -> None:
        self.entries[entry.key] = entry

    def stale(self, chunk_hash: str, prompt_version: str, model: str, ontology_version: str) -> CacheEntry | None:
        """The entry for the same text, prompt and model made under another ontology version."""
        found = [
            e for e in self.entries.values()
            if e.chunk_hash == chunk_hash and e.prompt_version == prompt_version and e.model == model
            and e.ontology_version != ontology_version
        ]
        return max(found, key=lambda e: e.ontology_version) if found else None

    def save(self, keep_chunk_hashes: set[str]) -> None:
        """Write the entries of chunks that still exist."""
        rows = [asdict(e) for e in self.entries.values() if e.chunk_hash in keep_chunk_hashes]
        write_parquet(pl.DataFrame(rows, schema=_SCHEMA), self.root / "cache.parquet")

    def snapshot(self, version: str) -> dict[str, Any] | None:
        path = self.root / "ontologies" / f"{content_hash(version)}.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def save_snapshot(self, snapshot: dict[str, Any]) -> None:
        _write_json(self.root / "ontologies" / f"{content_hash(snapshot['version'])}.json", snapshot)

    def read_pending(self) -> list[dict[str, str]]:
        path = self.root / "pending.json"
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []

    def write_pending(self, pending: list[dict[str, str]]) -> None:
        _write_json(self.root / "pending.json", pending)


def _changed(old: dict[str, Any], new: dict[str, Any]) -> set[str]:
    return {name for name in set(old) | set(new) if old.get(name) != new.get(name)}


def affected(extraction: dict[str, Any], old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Whether an ontology change can change this extraction.

    It can when a new entity type appears (anything might be one), when the extraction uses
    an entity or relation type that changed, or when a changed relation type may connect
    entity types the extraction holds. Without the old snapshot, every extraction is.
    """
    if old is None or set(new["entity_types"]) - set(old["entity_types"]):
        return True
    kinds = {e["kind"] for e in extraction.get("entities", [])}
    used_relations = {r["type"] for r in extraction.get("relations", [])}
    changed_kinds = _changed(old["entity_types"], new["entity_types"])
    changed_relations = _changed(old["relation_types"], new["relation_types"])
    if kinds & changed_kinds or used_relations & changed_relations:
        return True
    for name in changed_relations:
        for spec in (old["relation_types"].get(name), new["relation_types"].get(name)):
            ends = set(spec["domain"]) | set(spec["range"]) if spec else set()
            if "*" in ends and kinds or kinds & ends:
                return True
    return False
