"""The one ingest pipeline: a namespace's sources into its files, vectors and graph.

Its steps are the ingest job's assets, in the job's order. Each asset calls its step (so a
Dagster run, `mnemo ingest` and the file-drop sensor run them one by one); an evaluation calls
`run`, which runs them all. Either way the graph written is the canonical one: extraction facts
with the sleep merges and overlays a namespace has (`mnemo.sleep.merges.canonical_facts`).
"""

from dataclasses import dataclass, field

from mnemo.config import MnemoConfig, NamespaceConfig
from mnemo.documents import Chunk
from mnemo.extract.grounding import LanceEntityNeighbours
from mnemo.extract.llm import LLMExtractor
from mnemo.extract.llm_run import LLMRunStats
from mnemo.ingest.embedder_choice import choose_for_documents
from mnemo.ingest.memory_rows import pending_groups
from mnemo.ingest.pipeline import (
    ChunkStats,
    FactsSummary,
    build_chunks,
    chunk_groups,
    entity_rows,
    llm_extract,
    scan_documents,
    update_facts,
)
from mnemo.maintenance.figures import keep_memory_ids
from mnemo.maintenance.forget import ForgetStores, resume_forget
from mnemo.recall.note_cards import update_cards, wants_cards
from mnemo.sleep.merges import canonical_entities, canonical_facts
from mnemo.sources.scan import ScanResult
from mnemo.stores.embed_progress import Report
from mnemo.stores.embedders import Embedder
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import ApplyStats, GraphStore
from mnemo.stores.kept import graph_counts
from mnemo.stores.vectors import SyncStats, VectorStore
from ontology import Ontology

STEPS = ("forget", "documents", "chunks", "chunk_vectors", "extractions", "entity_vectors", "llm_extractions",
         "entity_graph")
NO_LLM = "no LLM configured: no LLM facts"


@dataclass
class GraphWrite:
    """What the `entity_graph` step wrote, and the rows per table of the graph it made."""

    stats: ApplyStats
    counts: dict[str, int]


@dataclass
class IngestRun:
    """What `IngestPipeline.run` did: each step by name, with a note when it did nothing or less
    than its all (e.g. no LLM configured), and the counts an evaluation reports."""

    steps: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)


def describe_steps(steps: dict[str, str], stage: str = "ingest") -> str:
    """One line naming the steps of `stage` that ran, with their notes, e.g. for an evaluation's header."""
    return f"{stage} steps: " + ", ".join(f"{name} ({note})" if note else name for name, note in steps.items())


@dataclass
class IngestPipeline:
    """One namespace's ingest, as named steps over its files and stores (see the module's docstring).
    Stores and embedder are opened or loaded only by the steps that use them."""

    settings: MnemoConfig
    files: NamespaceFiles
    ontology: Ontology
    vectors: VectorStore
    graph: GraphStore
    embedder: Embedder
    extractor: LLMExtractor | None = None
    run_id: str = ""

    @classmethod
    def of(cls, settings: MnemoConfig, namespace: str, ontology: Ontology, embedder: Embedder,
           extractor: LLMExtractor | None = None, run_id: str = "") -> "IngestPipeline":
        """The pipeline of `namespace` on its stores where `settings` put them."""
        files = NamespaceFiles(settings.data_root(namespace), namespace)
        vectors = VectorStore(files.vectors_path, settings.vector_index)
        graph = GraphStore(files.graph_path, ontology, engine=settings.graph.engine)
        return cls(settings, files, ontology, vectors, graph, embedder, extractor, run_id)

    @property
    def namespace(self) -> NamespaceConfig:
        return self.settings.namespace(self.files.namespace)

    def forget(self) -> bool:
        """Finish a forget that was cut off, so nothing it forgets comes back; whether there was one."""
        stores = ForgetStores(self.settings, self.files, self.vectors, self.graph, self.embedder)
        return resume_forget(stores) is not None

    def documents(self) -> ScanResult:
        """Notes and conversations scanned incrementally from the namespace's sources."""
        scanned = scan_documents(self.files, self.namespace, self.settings.writeback.key)
        keep_memory_ids(self.files)  # for `mnemo status` until the table is written again
        return scanned

    def chunks(self) -> tuple[list[Chunk], ChunkStats]:
        """The documents' passages (new and changed documents chunked again)."""
        return build_chunks(self.files, self.settings.chunking.max_words)

    def chunk_vectors(self, progress: Report | None = None) -> SyncStats:
        """The passages' embeddings and full-text index (only new or changed passages embedded)."""
        late = pending_groups(self.files.root, self.files.namespace, self.settings.chunking.max_words)
        groups = chunk_groups(self.files.read_chunks())
        choice = choose_for_documents(self.settings, self.files.root, self.files.read_documents)
        self.vectors.stem_text_as(choice.stemmer)  # the full-text index in the notes' language
        synced = self.vectors.sync_groups("chunks", groups, self.embedder, late=late, progress=progress)
        update_cards(self.vectors, self.files.read_documents, wants_cards(self.embedder.name, choice.stemmer))
        return synced

    def extractions(self) -> FactsSummary:
        """The structural facts (skipped when their inputs are those of the last run)."""
        return update_facts(self.files, self.ontology, self.namespace)

    def entity_vectors(self) -> SyncStats:
        """The canonical entities' embeddings (merges applied)."""
        return self.vectors.sync("entities", entity_rows(canonical_entities(self.files)), self.embedder)

    def llm_extractions(self, reextract: bool = False) -> LLMRunStats:
        """The LLM's facts, grounded in the known entities; with no extractor, none."""
        grounding = self.settings.grounding
        if self.extractor is None:
            return llm_extract(self.files, None, self.ontology, grounding)
        neighbours = LanceEntityNeighbours(self.vectors.open("entities"), self.embedder)
        return llm_extract(self.files, self.extractor, self.ontology, grounding, neighbours,
                           self.extractor.settings.concurrency, reextract)

    def entity_graph(self) -> GraphWrite:
        """The graph made equal to the canonical facts (only differences written; not opened when
        nothing wrote it since it last got these facts)."""
        facts = canonical_facts(self.files, shared=True)
        written = GraphWrite(self.graph.apply_all(facts, run_id=self.run_id), facts.count())
        graph_counts(self.graph.path, self.graph.counts)  # as the write kept them, else counted (for `mnemo status`)
        return written

    def run(self) -> IngestRun:
        """Every step, in the ingest job's order."""
        forgot = self.forget()
        scan = self.documents()
        found, _ = self.chunks()
        embedded = self.chunk_vectors()
        self.extractions()
        self.entity_vectors()
        self.llm_extractions()
        self.entity_graph()
        steps = dict.fromkeys(STEPS, "")
        steps["forget"] = "finished one cut off" if forgot else "none cut off"
        steps["llm_extractions"] = "" if self.extractor else NO_LLM
        steps["entity_graph"] = "merges and sleep overlays applied"
        counts = {"documents": len(scan.documents), "chunks": len(found), "embedded": embedded.embedded,
                  "problems": len({p.path for p in scan.problems})}
        return IngestRun(steps, counts)
