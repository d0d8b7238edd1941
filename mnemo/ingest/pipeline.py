"""The ingest steps as plain functions over a namespace's files and stores.

`mnemo.pipelines.ingest.IngestPipeline` composes them into the steps the ingest job's assets run.
Every step reconciles its output with its input, so re-running any step, in any state, converges
to the same stores.
"""

import json
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from mnemo.config import GroundingConfig, NamespaceConfig
from mnemo.documents import Chunk, Document, chunk_document, content_hash, without_passages
from mnemo.extract.fragments import FragmentCache
from mnemo.extract.grounding import EntityNeighbours, Grounder, salience
from mnemo.extract.llm_cache import ExtractionCache
from mnemo.extract.llm_facts import merge_facts
from mnemo.extract.llm_run import ChunkExtractor, LLMRun, LLMRunStats
from mnemo.extract.notes import grounding_entities, link_text_aliases
from mnemo.extract.structural import StructuralExtractor
from mnemo.extract.timeline import SpeakerMap
from mnemo.facts import EDGE_COLUMNS, EdgeRows, GraphFacts
from mnemo.ingest.cards import property_card
from mnemo.ingest.segments import block_index, chunk_segments, referenced
from mnemo.runtime import collections_paused
from mnemo.sources.memory_files import MEMORY_METADATA, inbox_dir, inbox_source
from mnemo.sources.scan import ScanResult, scan_namespace
from mnemo.sources.walk import Problem
from mnemo.stores import durable
from mnemo.stores.files import NamespaceFiles, read_json_object
from mnemo.stores.graph_schema import NODE_SCHEMAS
from mnemo.stores.locks import writer
from mnemo.stores.tombstones import FILE as TOMBSTONES
from mnemo.stores.tombstones import Tombstones
from mnemo.stores.vectors import RowGroup
from ontology import Ontology


@writer(lambda files: files.root)
def scan_documents(files: NamespaceFiles, namespace: NamespaceConfig, writeback_key: str = "mnemo") -> ScanResult:
    """Scan the namespace's sources incrementally; write documents, manifest and problems."""
    sources = namespace.sources
    if inbox_dir(files.root).is_dir():
        sources = (*sources, inbox_source(files.root))
    with collections_paused():
        manifest = files.read_manifest()
        earlier = [Problem(p["path"], p["reason"], bool(p.get("skipped"))) for p in files.read_problems()]
        result = scan_namespace(files.namespace, sources, manifest, files.read_documents(), writeback_key, earlier)
        forgotten = Tombstones.load(files.root).docs  # a forgotten note's text is not kept, however often it is read
        result.documents = [d for d in result.documents if d.id not in forgotten]
        files.write_documents(result.documents)
    problems = [{"path": p.path, "reason": p.reason, "skipped": p.fatal} for p in result.problems]
    if problems != files.read_problems() or not (files.root / "problems.json").exists():
        files.write_problems(problems)
    if result.manifest != manifest or not (files.root / "manifest.parquet").exists():
        files.write_manifest(result.manifest)
    return result


@dataclass
class ChunkStats:
    documents: int
    chunks: int
    rechunked_documents: int
    reused_documents: int


# How a chat's turns become chunks: a change to it (the dates resolved in a turn) chunks every chat again.
TURN_CHUNKS_FORMAT = "turns:dates"
# How a note's passages are dated (`documents.written`) and named (`metadata.name`): a change to it
# chunks every note again (passage ids stay; only passages whose embedded text changed are embedded again).
NOTE_CHUNKS_FORMAT = "notes:written:named"


def _doc_key(doc: Document, blocks: dict[str, str]) -> str:
    refs = referenced(doc, blocks) if doc.segments else {}
    key = f"{doc.content_hash}:{doc.path}:" + (TURN_CHUNKS_FORMAT if doc.kind == "chat" else NOTE_CHUNKS_FORMAT)
    return f"{key}:{content_hash(json.dumps(refs, sort_keys=True))}" if refs else key


@writer(lambda files: files.root)
def build_chunks(files: NamespaceFiles, max_words: int) -> tuple[list[Chunk], ChunkStats]:
    """Chunk new and changed documents; keep the chunks of the rest as they were."""
    with collections_paused():
        return _build_chunks(files, max_words)


def _build_chunks(files: NamespaceFiles, max_words: int) -> tuple[list[Chunk], ChunkStats]:
    docs = files.read_documents()
    blocks = block_index(docs)
    previous: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in files.read_chunks():
        previous[chunk.doc_id].append(chunk)
    chunks: list[Chunk] = []
    rechunked = 0
    for doc in docs:
        old = previous.get(doc.id, [])
        key = _doc_key(doc, blocks)
        if old and all(c.metadata.get("doc_key") == key and c.metadata.get("max_words") == max_words for c in old):
            chunks.extend(sorted(old, key=lambda c: c.position))
            continue
        rechunked += 1
        chunks.extend(document_chunks(doc, max_words, blocks))
    forgotten = Tombstones.load(files.root)
    hidden = [c for c in chunks if forgotten.hides(c.id, c.doc_id)]
    if hidden:  # a forgotten passage of a note read again: its text leaves the document too
        files.write_documents(without_passages(docs, hidden))
    chunks = forgotten.filter_chunks(chunks)
    files.write_chunks(chunks)
    return chunks, ChunkStats(len(docs), len(chunks), rechunked, len(docs) - rechunked)


def document_chunks(doc: Document, max_words: int, blocks: dict[str, str]) -> list[Chunk]:
    """A document's chunks as `build_chunks` makes them, marked with the key of the text they
    were cut from and the chunk size (what `chunk_groups` digests)."""
    key = _doc_key(doc, blocks)
    fresh = chunk_segments(doc, max_words, blocks) if doc.segments else chunk_document(doc, max_words)
    card = None if fresh else property_card(doc)  # a note of properties only (`ingest.cards`)
    fresh = [card] if card else fresh
    # a memory's expiry and scope, which recall reads from its passages (`recall.passage_visibility`)
    memory = "memory_id" in doc.properties
    kept = {k: doc.properties[k] for k in MEMORY_METADATA if k in doc.properties} if memory else {}
    # what a note named by an identifier calls itself, shown by recall in place of its title (`note_names`)
    if doc.shown_title != doc.title:
        kept["name"] = doc.shown_title
    for chunk in fresh:
        chunk.metadata.update({"doc_key": key, "max_words": max_words, **kept})
    return fresh


PREVIOUS_TURN_WORDS = 40


def embed_text(chunk: Chunk, by_id: dict[str, Chunk]) -> str:
    """What is embedded and full-text indexed for a chunk: its context text, and for a chat
    turn also the start of the turn before it (what the turn answers or goes on from)."""
    before = by_id.get(chunk.prev_id or "")
    if before is None or "turn_ids" not in chunk.metadata:
        return chunk.context_text
    words = before.text.split()
    previous = " ".join(words[:PREVIOUS_TURN_WORDS]) + (" ..." if len(words) > PREVIOUS_TURN_WORDS else "")
    return f"{chunk.context_text}\n(after {previous})"


def chunk_rows(chunks: list[Chunk]) -> list[dict[str, Any]]:
    """Rows of the `chunks` vector table (no None values: LanceDB infers types from data)."""
    by_id = {c.id: c for c in chunks}
    return [
        {
            "id": c.id,
            "namespace": c.namespace,
            "doc_id": c.doc_id,
            "position": c.position,
            "path": c.path,
            "title": c.title,
            "heading": c.heading,
            "kind": c.kind,
            "text": c.text,
            "embed_text": embed_text(c, by_id),
            "timestamp": c.timestamp or "",
            "prev_id": c.prev_id or "",
            "next_id": c.next_id or "",
            "metadata": json.dumps(
                {k: v for k, v in c.metadata.items() if k not in ("doc_key", "max_words")}, sort_keys=True
            ),
        }
        for c in chunks
    ]


# What a row of the chunks table holds, as `chunk_rows` makes it from a document's chunks: a change
# to it (or to `embed_text`) changes this, so that the next sync compares every row again.
CHUNK_ROWS_FORMAT = "1"


def chunk_groups(chunks: list[Chunk]) -> list[RowGroup]:
    """The rows of the chunks table by document, for `VectorStore.sync_groups`. A document's digest
    covers its chunks' ids in order and the key of the text they were cut from (`doc_key`: the
    document's content, path and block references) with the chunk size: `build_chunks` keeps a
    document's chunks as they were while that key is the same, so its rows change only with the
    digest. A document with a chunk made before chunks carried that key is digested from its rows."""
    by_doc: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        by_doc[chunk.doc_id].append(chunk)
    return [
        RowGroup(doc_id, _chunks_digest(group), len(group), partial(chunk_rows, group))
        for doc_id, group in by_doc.items()
    ]


def _chunks_digest(chunks: list[Chunk]) -> str:
    if all("doc_key" in c.metadata for c in chunks):
        return content_hash(
            CHUNK_ROWS_FORMAT, *(f"{c.id}:{c.metadata['doc_key']}:{c.metadata.get('max_words')}" for c in chunks)
        )
    return content_hash(CHUNK_ROWS_FORMAT, json.dumps(chunk_rows(chunks), sort_keys=True))


STRUCTURAL_CACHE = "structural_cache"
FACTS_STATE = "facts_state.json"
PREVIEW_RELATIONS = 15


def _extraction_salt(ontology: Ontology, namespace: str, speakers: SpeakerMap | None) -> str:
    """What every structural fact depends on besides the documents: the ontology's content,
    the namespace and the speaker settings."""
    vocabulary = (ontology.version, ontology.entity_types, ontology.relation_types, ontology.structural_types,
                  ontology.type_keys, ontology.type_tags, ontology.default_type)
    return content_hash(repr(vocabulary), namespace, repr(speakers))


@writer(lambda files: files.root)
def extract_facts(files: NamespaceFiles, ontology: Ontology, namespace: NamespaceConfig | None = None) -> GraphFacts:
    """Run the structural extractor over the whole namespace and store the result. The
    pieces of documents that did not change (nor did what they link to or name) are
    reused from the last run; the facts are the same as a full extraction's. The facts
    returned are shared with later readers in this process: read them, do not change them."""
    speakers = SpeakerMap(namespace.self_name, namespace.self_speakers) if namespace else None
    with collections_paused():
        cache = FragmentCache(files.root / STRUCTURAL_CACHE, _extraction_salt(ontology, files.namespace, speakers))
        extractor = StructuralExtractor(ontology, files.namespace, speakers)
        facts = extractor.extract(files.read_documents(), files.read_chunks(), cache)
        cache.save()
        facts = Tombstones.load(files.root).filter_facts(facts)
        files.write_changed_facts(facts)
        _remember(files, facts)
    return facts


@dataclass
class FactsSummary:
    """What the extractions asset reports: counts per table and a few relations."""

    counts: dict[str, int]
    relations: int
    preview: list[dict[str, Any]]
    reused: bool = False


@writer(lambda files: files.root)
def update_facts(files: NamespaceFiles, ontology: Ontology, namespace: NamespaceConfig | None = None) -> FactsSummary:
    """`extract_facts`, skipped when its inputs (documents, chunks, tombstones, ontology,
    speaker settings) are byte for byte those of the last run and its output is untouched."""
    speakers = SpeakerMap(namespace.self_name, namespace.self_speakers) if namespace else None
    inputs = content_hash(
        files.file_digest("documents.parquet", "chunks.parquet", TOMBSTONES),
        _extraction_salt(ontology, files.namespace, speakers),
    )
    state = read_json_object(files.root / FACTS_STATE)
    if state.get("inputs") == inputs and state.get("outputs") == files.folder_stats("facts"):
        return FactsSummary(state["counts"], state["relations"], state["preview"], reused=True)
    facts = extract_facts(files, ontology, namespace)
    related = [(key[0], rows) for key, rows in sorted(facts.edges.items()) if key[1:] == ("Entity", "Entity")]
    first = islice(((table, r) for table, rows in related for r in rows.values()), PREVIEW_RELATIONS)
    preview = [{"src": r["src"], "type": table.lower(), "dst": r["dst"], "role": r["role"]} for table, r in first]
    summary = FactsSummary(facts.count(), sum(len(rows) for _, rows in related), preview)
    state = {"inputs": inputs, "outputs": files.folder_stats("facts"), "counts": summary.counts,
             "relations": summary.relations, "preview": summary.preview}
    _write_state(files.root / FACTS_STATE, state)
    return summary


def _write_state(path: Path, state: dict[str, Any]) -> None:
    durable.write_json(path, state, f"state:{path.name}", indent=None)


LLM_FACTS = "llm_facts"


def llm_extract(
    files: NamespaceFiles, extractor: ChunkExtractor | None, ontology: Ontology, grounding: GroundingConfig,
    neighbours: EntityNeighbours | None = None, concurrency: int = 1, reextract: bool = False,
) -> LLMRunStats:
    """LLM extraction grounded in the structural facts; with no extractor, no LLM facts."""
    if extractor is None:
        files.write_changed_facts(GraphFacts(), LLM_FACTS)
        return LLMRunStats()
    structural = files.read_facts()
    grounder = Grounder(grounding_entities(structural), grounding, salience(structural), neighbours)
    run = LLMRun(ExtractionCache(files.root / "llm"), extractor, ontology, concurrency)
    facts = run.run(files.read_chunks(), grounder, reextract)
    files.write_facts(facts, LLM_FACTS)
    return run.stats


MERGED = "merged facts"  # the name of `graph_facts`'s read in the namespace's session


def graph_facts(files: NamespaceFiles, nodes: Collection[str] | None = None, shared: bool = False) -> GraphFacts:
    """What the graph should hold: the structural facts merged with the LLM's. Read once per
    version of their files in a process (the steps of a run that need them share the read);
    each call gets its own copy of the rows. With `nodes`, only the rows of those node tables
    (and no edges). With `shared`, the tables are the caller's own but the rows are those other
    readers hold: read them, never change them."""
    version = [files.folder_stats("facts"), files.folder_stats(LLM_FACTS)]
    merged: GraphFacts | None = files.session.kept(MERGED, version) if version[0] else None
    with collections_paused():
        if merged is None:
            merged = merge_facts(files.read_facts(), files.read_facts(LLM_FACTS))
            files.session.keep(MERGED, version, merged)
        if shared:
            return GraphFacts(nodes={t: dict(rows) for t, rows in merged.nodes.items() if nodes is None or t in nodes},
                              edges={k: dict(rows) for k, rows in merged.edges.items()} if nodes is None else {})
        return _copy(merged, nodes)


def _remember(files: NamespaceFiles, facts: GraphFacts) -> None:
    """Keep the facts just written as what `graph_facts` reads back, when they are exactly the
    rows the files hold (the columns of each table, no more, no fewer)."""
    for table, rows in facts.nodes.items():
        columns = set(NODE_SCHEMAS[table])
        if any(row.keys() != columns for row in rows.values()):
            return
    edge_columns = set(EDGE_COLUMNS)
    if any(row.keys() != edge_columns for rows in facts.edges.values() for row in rows.values()):
        return
    version = [files.folder_stats("facts"), files.folder_stats(LLM_FACTS)]
    if {name for name, *_ in version[0] if name.endswith(".parquet")} != {f"{t}.parquet" for t in facts.nodes} | {
        "edges.parquet"
    }:
        return
    files.session.keep(MERGED, version, merge_facts(facts, files.read_facts(LLM_FACTS)))


def _copy(facts: GraphFacts, tables: Collection[str] | None = None) -> GraphFacts:
    """Rows that can be changed without changing `facts` (the lists in node rows included); with
    `tables`, only those node tables' (and no edges)."""
    nodes = {}
    for table, rows in facts.nodes.items():
        if tables is not None and table not in tables:
            continue
        lists = [c for c, t in NODE_SCHEMAS.get(table, {}).items() if t.endswith("[]")]
        copied = {i: dict(r) for i, r in rows.items()}
        for row in copied.values():
            for column in lists:
                if isinstance(row.get(column), list):
                    row[column] = list(row[column])
        nodes[table] = copied
    edges: dict[tuple[str, str, str], EdgeRows] = {}
    if tables is None:
        edges = {key: {i: dict(r) for i, r in rows.items()} for key, rows in facts.edges.items()}
    return GraphFacts(nodes=nodes, edges=edges)


def entity_rows(facts: GraphFacts) -> list[dict[str, Any]]:
    """Rows of the `entities` vector table: name, type, aliases (then the display texts of links
    to the entity, weaker names) and properties as text."""
    rows = []
    linked_as = link_text_aliases(facts)
    for entity in sorted(facts.nodes["Entity"].values(), key=lambda r: r["id"]):
        declared = list(entity["aliases"] or [])
        texts = [t for t in linked_as.get(entity["id"], []) if t not in declared and t != entity["name"]]
        aliases = declared + texts
        described = f"{entity['name']} ({entity['kind']})"
        if declared:
            described += "; also called " + ", ".join(declared)
        if texts:
            described += "; linked as " + ", ".join(texts)
        properties = json.loads(entity["properties"] or "{}")
        if properties:
            described += "; " + "; ".join(f"{k}: {v}" for k, v in sorted(properties.items()))
        rows.append({
            "id": entity["id"], "kind": entity["kind"], "name": entity["name"], "aliases": json.dumps(aliases),
            "doc_id": entity["doc_id"] or "", "embed_text": described,
        })
    return rows
