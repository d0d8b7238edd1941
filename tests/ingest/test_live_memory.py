"""Write-through remember: recallable by the next recall in any process, taken over by ingest
without duplicates, kept by a sync that started before it was written."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mnemo.ingest import pipeline
from mnemo.ingest.memory_rows import pending_groups
from mnemo.maintenance.forget import ForgetStores
from mnemo.memories.live import LiveMemories
from mnemo.sources.memory_files import memory_doc_id
from mnemo.stores.embedders import build_embedder
from mnemo.stores.vectors import VectorStore
from tests.support import Workspace, make_workspace
from tests.support import steady_client as client

ZEPHYRINE = "Lunch with Zephyrine Okafor at the harbour cafe; she is moving to Oslo in March."
MNEMO = [sys.executable, "-c", "from mnemo.cli.main import app; app()"]


def rows_of(workspace: Workspace, doc_id: str, namespace: str = "test") -> list[tuple[str, str, str]]:
    """(id, embed_hash, meta_hash) of the chunks-table rows of one document."""
    table = workspace.vectors(namespace).table("chunks")
    assert table is not None
    found = table.search().where(f"doc_id = '{doc_id}'").select(["id", "embed_hash", "meta_hash"]).limit(None)
    return sorted((r["id"], r["embed_hash"], r["meta_hash"]) for r in found.to_list())


def all_ids(workspace: Workspace, namespace: str = "test") -> list[str]:
    table = workspace.vectors(namespace).table("chunks")
    assert table is not None
    return table.search().select(["id"]).limit(None).to_arrow()["id"].to_pylist()


def test_remember_then_recall_in_a_fresh_process_with_no_daemon(workspace: Workspace) -> None:
    workspace.ingest()
    memory = client(workspace).remember(ZEPHYRINE)
    assert memory.status == "recallable"
    out = subprocess.run(
        [*MNEMO, "recall", "Where is Zephyrine moving?", "--namespace", "test", "--json",
         "--config", str(workspace.config_path)],
        capture_output=True, text=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    items = json.loads(out.stdout)["items"]
    assert "Zephyrine" in items[0]["text"]
    assert client(workspace).memory(memory.id).status == "recallable"


def test_ingest_takes_the_passage_over_with_the_same_rows(workspace: Workspace) -> None:
    workspace.ingest()
    memory = client(workspace).remember(ZEPHYRINE + " person_id:zephyrine_okafor")
    doc = memory_doc_id("test", memory.id)
    written = rows_of(workspace, doc)
    assert len(written) == 1
    result = workspace.ingest()
    assert workspace.metadata(result, "chunk_vectors")["embedded"] == 0  # nothing else changed either
    assert rows_of(workspace, doc) == written
    ids = all_ids(workspace)
    assert len(ids) == len(set(ids))
    c = client(workspace)
    assert c.memory(memory.id).status == "ingested"
    assert c.get_entity("person_id:zephyrine_okafor")["kind"] == "person"


def test_a_sync_from_documents_scanned_before_remember_keeps_the_memory(tmp_path: Path, small_vault: Path) -> None:
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(small_vault)}]})
    workspace.ingest()
    files, vectors = workspace.files(), workspace.vectors()
    embedder = build_embedder(workspace.config.embedder)
    chunks, _ = pipeline.build_chunks(files, 180)  # the ingest has read its documents ...
    memory = client(workspace).remember(ZEPHYRINE)  # ... when the memory is written
    stale = pipeline.chunk_groups(chunks)
    vectors.sync_groups("chunks", stale, embedder, late=pending_groups(files.root, "test", 180))
    assert client(workspace).recall("Where is Zephyrine moving?").items[0].text == ZEPHYRINE
    assert client(workspace).memory(memory.id).status == "recallable"


REMEMBER = """
import sys
from pathlib import Path
from mnemo.client import MemoryClient
c = MemoryClient("test", sys.argv[1])
stop, n = Path(sys.argv[3]), 0
while not stop.exists() and n < 200:
    memory = c.remember(f"Note {n} from writer {sys.argv[2]}: the quarterly figures for region {sys.argv[2]}-{n}.")
    print(memory.id, memory.status, flush=True)
    n += 1
"""


def test_concurrent_remembers_while_an_ingest_runs_lose_and_duplicate_nothing(workspace: Workspace) -> None:
    """Writers remember without pause from before the ingest starts until after it ends, so
    memories land between its scan and its vector sync (the sync must keep them)."""
    workspace.ingest()
    (workspace.root / "vault" / "New note.md").write_text("A new note about harbour logistics.\n" * 50)
    stop, inbox = workspace.root / "stop", workspace.files().root / "inbox"
    writers = [
        subprocess.Popen([sys.executable, "-c", REMEMBER, str(workspace.config_path), str(w), str(stop)],
                         stdout=subprocess.PIPE, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
        for w in range(3)
    ]
    while len(list(inbox.glob("mem_*.json"))) < 3:
        time.sleep(0.05)
    workspace.ingest()  # runs while the writers remember
    stop.touch()
    lines = [line.split() for p in writers for line in p.communicate(timeout=300)[0].splitlines()]
    assert all(p.returncode == 0 for p in writers)
    remembered = [memory_id for memory_id, _ in lines]
    # a remember that waited more than LIVE_WAIT_SECONDS for the table says `processing` (it is in
    # the inbox for the next ingest); on a quiet machine none does
    assert {status for _, status in lines} <= {"recallable", "processing"}
    live = [memory_doc_id("test", m) for m, status in lines if status == "recallable"]
    assert len(live) >= len(lines) // 2
    assert [d for d in live if len(rows_of(workspace, d)) != 1] == []  # none dropped by the concurrent sync
    docs = [memory_doc_id("test", m) for m in remembered]
    workspace.ingest()
    ids = all_ids(workspace)
    assert len(ids) == len(set(ids))
    assert [d for d in docs if len(rows_of(workspace, d)) != 1] == []
    c = client(workspace)
    assert {c.memory(m).status for m in remembered} == {"ingested"}


class CountedOpens(VectorStore):
    """A vector store that counts how often a table is opened."""

    opened = 0

    def table(self, name: str) -> Any | None:
        self.opened += 1
        return super().table(name)


def test_listing_memories_reads_the_chunks_table_once(workspace: Workspace) -> None:
    config, files = workspace.config, workspace.files()
    vectors = CountedOpens(files.vectors_path)
    live = LiveMemories(ForgetStores(config, files, vectors, workspace.graph(), build_embedder(config.embedder)))
    for place in ("harbour", "station", "library"):
        assert live.remember(f"Zephyrine waits at the {place}.").status == "recallable"
    vectors.opened = 0
    assert [m.status for m in live.listed()] == ["recallable"] * 3
    assert vectors.opened == 1
