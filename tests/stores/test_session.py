"""A namespace session keeps what it read while the files are the same, and a write makes the
next read see the new data: a write through the session keeps what it wrote, a write by another
writer (another session, another process) changes the files' stamps, and a sleep run in the
session drops what recall derived from sleep mode's files."""

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.documents import Chunk
from mnemo.recall.profiles import Profiles
from mnemo.sleep.consolidate import consolidate
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.session import NamespaceSession
from tests.support import Workspace, steady_client

QUERY = "FSRS-style scheduler experiment exported reviews"


def _chunk(n: int) -> Chunk:
    return Chunk(f"c{n}", "t", "d", n, "", f"passage {n}", "a.md", "A", "note")


def test_a_table_another_writer_rewrote_is_read_again(tmp_path: Path) -> None:
    reader, writer = NamespaceFiles(tmp_path, "t"), NamespaceFiles(tmp_path, "t")  # two sessions: two processes
    reader.write_chunks([_chunk(1)])
    first = reader.read_chunks()
    assert first[0] is reader.read_chunks()[0]  # unchanged file: the objects kept, not parsed again
    writer.write_chunks([_chunk(1), _chunk(2)])
    assert [c.id for c in reader.read_chunks()] == ["c1", "c2"]
    reader.write_chunks([_chunk(3)])  # a write through the session: what it wrote is what it reads
    assert [c.id for c in reader.read_chunks()] == ["c3"] == [c.id for c in writer.read_chunks()]


def _write_profiles(root: Path, speaker: str) -> Path:
    path = root / "sleep" / "state" / "speakers.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    item = {"speaker": speaker, "vector": [1.0, 0.0], "sources": ["c1"], "text": "likes hiking"}
    path.write_text(json.dumps({"items": [item]}), encoding="utf-8")
    return path


def test_profiles_are_read_again_when_sleep_mode_rewrites_them(tmp_path: Path) -> None:
    session = NamespaceSession(tmp_path)
    assert Profiles.load(session).items == []  # before sleep mode ran
    path = _write_profiles(tmp_path, "Melanie")
    assert [i["speaker"] for i in Profiles.load(session).items] == ["Melanie"]
    assert Profiles.load(session) is Profiles.load(session)  # parsed once per version of the file
    later = path.stat().st_mtime_ns + 10**9
    _write_profiles(tmp_path, "Caroline")  # another writer: as long, a new modification time
    os.utime(path, ns=(later, later))
    assert [i["speaker"] for i in Profiles.load(session).items] == ["Caroline"]


def test_a_sleep_run_in_the_session_drops_what_recall_derived_from_its_files(tmp_path: Path) -> None:
    """Today's rule for another writer is the file's size and modification time; a rewrite that
    keeps both is seen once a sleep run in the session says it wrote."""
    session = NamespaceSession(tmp_path)
    path = _write_profiles(tmp_path, "Melanie")
    assert [i["speaker"] for i in Profiles.load(session).items] == ["Melanie"]
    stamp = path.stat().st_mtime_ns
    _write_profiles(tmp_path, "Jasmine")  # as long as "Melanie"
    os.utime(path, ns=(stamp, stamp))
    assert [i["speaker"] for i in Profiles.load(session).items] == ["Melanie"]
    session.sleep_wrote()
    assert [i["speaker"] for i in Profiles.load(session).items] == ["Jasmine"]


def test_a_held_client_recalls_what_a_sleep_run_wrote(workspace: Workspace) -> None:
    workspace.ingest()
    client = steady_client(workspace)
    assert client.recall(QUERY, k=5).top_of_mind == []  # no sleep yet: the session keeps an empty view
    now = datetime.now(UTC) + timedelta(minutes=1)
    consolidate(workspace.files(), workspace.graph(), SleepConfig(), now)  # another session writes
    assert client.recall(QUERY, k=5).top_of_mind


def _quinn_relations(client: MemoryClient) -> list[str]:
    items = client.recall("Quinn Avery and Alice Chen", mode="deliberate").items
    return [i.id for i in items if i.kind == "relation" and "person_quinn_avery" in i.id]


def test_a_held_client_recalls_a_note_ingested_after_it_was_made(workspace: Workspace, vault: Path) -> None:
    workspace.ingest()
    client = steady_client(workspace)
    assert _quinn_relations(client) == []  # the session now holds a view of the graph without Quinn
    (vault / "People" / "Quinn Avery.md").write_text(
        "---\ntype: person\nknows: [\"[[Alice Chen]]\"]\n---\n# Quinn Avery\n\nQuinn Avery met [[Alice Chen]].\n",
        encoding="utf-8")
    workspace.ingest()  # another writer rewrote the graph: the client's session reads its view again
    assert _quinn_relations(client)
