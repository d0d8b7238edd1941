"""Forgetting in the files between pipeline steps and in sleep mode's files.

Every file mnemo derives from the sources drops what a tombstone names: the documents (the
memory's text, the body of the note that is a forgotten entity's page), the chunks, the
structural facts (extracted again from what is left, as the next ingest would: an entity only a
forgotten memory named goes, and the extractor's cache drops the forgotten documents), the LLM
facts, and the LLM extractor's cached answers for forgotten chunks. In sleep mode's files, a
row made from something forgotten goes (a community with a forgotten member, a summary citing a
forgotten passage, a salience row), the per-step state
files stop naming forgotten ids, and so do the review queue and the access log; the next sleep
recomputes what went. The merge log is left as it is: it names ids only, and rewriting it could
part entities a person merged.
"""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl

from mnemo.config import NamespaceConfig
from mnemo.documents import without_passages
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_run import chunk_hash
from mnemo.ingest.pipeline import update_facts
from mnemo.sleep.store import Overlay, SleepFiles, read_json, write_json
from mnemo.stores.files import NamespaceFiles, write_bytes_atomic
from mnemo.stores.tombstones import Tombstones
from ontology import Ontology

STRUCTURAL, LLM = "facts", "llm_facts"
LLM_CACHE = "llm"


def purge_files(files: NamespaceFiles, stored: Tombstones, ontology: Ontology, namespace: NamespaceConfig) -> bool:
    """Drop everything `stored` names from the namespace's Parquet state and caches: a forgotten
    document goes, and a forgotten passage leaves its document's text. Returns whether the facts
    (what the graph is made of) changed. The documents are written before the chunks, whose text
    says what leaves them, so a run cut off between the two is finished by the next."""
    every = files.read_chunks()
    docs = files.read_documents()
    kept = without_passages([d for d in docs if d.id not in stored.docs],
                            [c for c in every if c.id in stored.chunks])
    if kept != docs:
        files.write_documents(kept)
    chunks = stored.filter_chunks(every)
    files.write_chunks(chunks)
    before = files.folder_stats(STRUCTURAL)
    update_facts(files, ontology, namespace)  # as the next ingest would: its cache drops the documents that went
    changed = files.folder_stats(STRUCTURAL) != before
    if (files.root / LLM).is_dir():
        changed = _purge_facts(files, stored, LLM) or changed
    gone = {c.id for c in every} - {c.id for c in chunks}
    _purge_llm_cache(files.root / LLM_CACHE, {chunk_hash(c) for c in chunks}, gone | stored.chunks)
    return changed


def entity_hashes(files: NamespaceFiles) -> dict[str, str]:
    """Entity id -> row hash in the structural facts, then the LLM facts (which only add to them)."""
    hashes: dict[str, str] = {}
    for path in (files.root / folder / "Entity.parquet" for folder in (LLM, STRUCTURAL)):
        if path.exists():
            frame = pl.read_parquet(path, columns=["id", "h"])
            hashes.update(zip(frame["id"].to_list(), frame["h"].to_list()))
    return hashes


def _purge_facts(files: NamespaceFiles, stored: Tombstones, folder: str) -> bool:
    facts = files.read_facts(folder)
    kept = stored.filter_facts(facts)
    for table in facts.nodes:
        kept.nodes.setdefault(table, {})  # a table left empty is written empty, not left as it was
    if kept.nodes == facts.nodes and kept.edges == facts.edges:
        return False
    files.write_facts(kept, folder)
    return True


def _purge_llm_cache(root: Path, keep_hashes: set[str], gone: set[str]) -> None:
    """Drop the LLM extractor's answers for text no chunk has any more, and forgotten pending chunks."""
    if not root.is_dir():
        return
    cache = ExtractionCache(root)
    if any(e.chunk_hash not in keep_hashes for e in cache.entries.values()):
        cache.save(keep_hashes)
    pending = cache.read_pending()
    left = [p for p in pending if p.get("chunk_id") not in gone]
    if len(left) != len(pending):
        cache.write_pending(left)


# -- sleep mode's files ----------------------------------------------------------------


def names_any(value: Any, ids: frozenset[str]) -> bool:
    """Whether a JSON value holds one of `ids` as a string, a key, inside a list or mapping, or
    quoted in a string that is JSON itself (a community's `members`)."""
    if isinstance(value, str):
        return value in ids or ('"' in value and any(f'"{i}"' in value for i in ids))
    if isinstance(value, dict):
        return any(k in ids or names_any(v, ids) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(names_any(v, ids) for v in value)
    return False


def without_ids(value: Any, ids: frozenset[str]) -> Any:
    """The JSON value without what names one of `ids`: mapping entries keyed by one, list items
    that are one, and list items that are records with one as a value (a review pair)."""
    if isinstance(value, dict):
        return {k: without_ids(v, ids) for k, v in value.items() if k not in ids}
    if isinstance(value, list):
        return [without_ids(v, ids) for v in value if not _names_directly(v, ids)]
    return value


def _names_directly(value: Any, ids: frozenset[str]) -> bool:
    if isinstance(value, str):
        return value in ids
    return isinstance(value, dict) and any(isinstance(v, str) and v in ids for v in value.values())


def purge_overlay(overlay: Overlay, ids: frozenset[str]) -> tuple[Overlay, int]:
    """The overlay without the rows made from forgotten things: nodes that name one (their id, a
    source, a member) or are an end of an edge to one, and every edge touching those. Returns it
    with the number of nodes left out."""
    dropped = {r["id"] for rows in overlay.nodes.values() for r in rows.values() if names_any(r, ids)}
    for rows in overlay.edges.values():
        for row in rows.values():
            if row["src"] in ids:
                dropped.add(row["dst"])
            if row["dst"] in ids:
                dropped.add(row["src"])
    gone = ids | dropped
    out = Overlay()
    out.nodes = {t: {i: r for i, r in rows.items() if i not in gone} for t, rows in overlay.nodes.items()}
    out.edges = {k: {i: r for i, r in rows.items() if r["src"] not in gone and r["dst"] not in gone}
                 for k, rows in overlay.edges.items()}
    out.linked = set(overlay.linked)
    return out, sum(len(rows) for rows in overlay.nodes.values()) - sum(len(rows) for rows in out.nodes.values())


def purge_sleep(root: Path, ids: frozenset[str]) -> int:
    """Remove forgotten ids from the namespace's sleep files; returns how many overlays (graph rows
    sleep adds) changed."""
    sleep = SleepFiles(root)
    changed = 0
    for path in _json_files(sleep.root / "overlay"):
        data = read_json(path, {})
        if names_any(data, ids):
            write_json(path, purge_overlay(Overlay.from_json(data), ids)[0].to_json())
            changed += 1
    for path in [*_json_files(sleep.root / "state"), sleep.review_queue]:
        data = read_json(path, None)
        if data is not None and names_any(data, ids):
            write_json(path, without_ids(data, ids))
    _purge_log(sleep.access_log, ids)
    return changed


def _json_files(folder: Path) -> Iterator[Path]:
    return iter(sorted(folder.glob("*.json"))) if folder.is_dir() else iter(())


def _purge_log(path: Path, ids: frozenset[str]) -> None:
    """Rewrite an append-only JSON-lines log without the lines that name a forgotten id."""
    if not path.exists():
        return
    lines = path.read_bytes().splitlines(keepends=True)
    kept = [line for line in lines if not _line_names(line, ids)]
    if len(kept) != len(lines):
        write_bytes_atomic(path, b"".join(kept))


def _line_names(line: bytes, ids: frozenset[str]) -> bool:
    try:
        return names_any(json.loads(line), ids)
    except ValueError:
        return False
