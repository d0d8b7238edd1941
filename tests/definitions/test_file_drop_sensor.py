"""The file-drop sensor over real temp folders: create, modify, touch, delete, rename, temp
files, bursts, and a cursor that survives a restart."""

import json
import os
import time
from pathlib import Path

import dagster as dg
import pytest
import yaml

from mnemo.errors import MisplacedNamespace
from mnemo.ingest.pipeline import scan_documents
from mnemo.sources.watch import SNAPSHOT_FILE, NamespaceWatch, fingerprint, step
from mnemo.stores.files import NamespaceFiles
from mnemo_dagster.jobs import NAMESPACE_TAG
from mnemo_dagster.resources import MnemoConfigResource
from mnemo_dagster.sensors.file_drop import file_drop_sensor


class Harness:
    """Evaluates the real sensor against a config whose namespace watches two folders."""

    def __init__(self, root: Path, settle: float = 0.0) -> None:
        self.notes = root / "notes"
        self.inbox = root / "inbox"
        self.notes.mkdir()
        self.inbox.mkdir()
        (self.notes / "Alice.md").write_text("# Alice\nWorks at Acme.\n", encoding="utf-8")
        self.config = root / "mnemo.yaml"
        self.config.write_text(yaml.safe_dump({
            "data_dir": str(root / "data"),
            "namespaces": {"me": {"sources": [
                {"kind": "obsidian", "path": str(self.notes)}, {"kind": "inbox", "path": str(self.inbox)},
            ]}},
            "watch": {"settle_seconds": settle},
        }), encoding="utf-8")
        self.instance = dg.DagsterInstance.ephemeral()
        self.instance.add_dynamic_partitions("namespace", ["me"])
        self.cursor: str | None = None

    def evaluate(self) -> list[dg.RunRequest]:
        with dg.build_sensor_context(
            cursor=self.cursor, instance=self.instance, resources={"mnemo_config": MnemoConfigResource(config_path=str(self.config))},
        ) as context:
            result = file_drop_sensor(context)
        assert isinstance(result, dg.SensorResult)
        self.cursor = result.cursor
        return list(result.run_requests or [])


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    stamp = time.time_ns() + 1_000_000  # a distinct mtime even on coarse file systems
    os.utime(path, ns=(stamp, stamp))


@pytest.fixture
def harness(tmp_path: Path) -> Harness:
    h = Harness(tmp_path)
    assert h.evaluate() == []  # the first evaluation only records a baseline
    return h


def test_create_modify_delete_rename_each_request_one_run(harness: Harness) -> None:
    _write(harness.notes / "Bob.md", "# Bob\n")
    (created,) = harness.evaluate()
    assert created.partition_key == "me" and created.tags["mnemo/changes"] == "1 new"
    assert created.tags[NAMESPACE_TAG] == "me"  # the run queue admits one run per namespace
    assert harness.evaluate() == []

    _write(harness.notes / "Bob.md", "# Bob\nLikes jazz.\n")
    (modified,) = harness.evaluate()
    assert modified.tags["mnemo/changes"] == "1 changed" and modified.run_key != created.run_key

    (harness.notes / "Bob.md").rename(harness.notes / "Robert.md")
    (renamed,) = harness.evaluate()
    assert renamed.tags["mnemo/changes"] == "1 renamed"

    (harness.notes / "Robert.md").unlink()
    (deleted,) = harness.evaluate()
    assert deleted.tags["mnemo/changes"] == "1 deleted"
    assert len({created.run_key, modified.run_key, renamed.run_key, deleted.run_key}) == 4
    assert all(r.run_key.startswith("file-drop-me-") and r.tags["mnemo/fingerprint"] in r.run_key for r in (created, deleted))


def test_chat_export_dropped_in_the_inbox_requests_a_run(harness: Harness) -> None:
    _write(harness.inbox / "conversations.json", json.dumps([{"id": "c1", "mapping": {}}]))
    (request,) = harness.evaluate()
    assert request.tags["mnemo/changes"] == "1 new"


def test_temp_files_tool_folders_and_touches_request_nothing(harness: Harness) -> None:
    for name in (".#Alice.md", "~$Alice.md", "Alice.md.tmp", "Alice.md.swp"):
        _write(harness.notes / name, "scratch")
    for folder in (".obsidian", ".trash"):
        (harness.notes / folder).mkdir()
        _write(harness.notes / folder / "workspace.json", "{}")
    alice = harness.notes / "Alice.md"
    os.utime(alice, ns=(time.time_ns() + 5_000_000, time.time_ns() + 5_000_000))  # touched, same bytes
    assert harness.evaluate() == []


def test_undoing_an_edit_still_requests_a_run(harness: Harness) -> None:
    alice = harness.notes / "Alice.md"
    original = alice.read_text(encoding="utf-8")
    _write(alice, original + "Moved to Porto.\n")
    (first,) = harness.evaluate()
    _write(alice, original)
    (undo,) = harness.evaluate()
    assert undo.run_key != first.run_key  # Dagster skips a run key it has seen: the undo must not reuse one


def test_cursor_survives_a_restart(harness: Harness) -> None:
    _write(harness.notes / "Carla.md", "# Carla\n")
    assert len(harness.evaluate()) == 1
    saved = harness.cursor
    restarted = Harness.__new__(Harness)
    restarted.__dict__.update(harness.__dict__)
    restarted.cursor = saved  # a new process: only the stored cursor is carried over
    assert restarted.evaluate() == []
    _write(harness.notes / "Carla.md", "# Carla\nRuns marathons.\n")
    (request,) = restarted.evaluate()
    assert request.tags["mnemo/changes"] == "1 changed"
    kept = json.loads((harness.config.parent / "data" / "me" / SNAPSHOT_FILE).read_text(encoding="utf-8"))
    assert {Path(p).name for p in kept} == {"Alice.md", "Carla.md"}
    assert all(len(v) == 3 and isinstance(v[0], int) for v in kept.values())  # path -> mtime_ns, size, hash


def test_the_cursor_holds_a_digest_not_every_files_hash(harness: Harness) -> None:
    for n in range(200):
        _write(harness.notes / f"Note {n:03}.md", f"# Note {n}\n")
    assert len(harness.evaluate()) == 1
    assert harness.cursor is not None and len(harness.cursor) < 400, len(harness.cursor)
    state = json.loads(harness.cursor)["namespaces"]["me"]
    assert state["watched"] == 201 and state["files"] == state["requested"]
    assert "Note 000" not in harness.cursor


def _logseq(tmp_path: Path) -> tuple[Harness, Path]:
    """A harness whose namespace reads one Logseq graph (pages/Kayak.md in it)."""
    graph = tmp_path / "graph"
    for folder in ("pages", "journals", "assets", "logseq/version-files", "logseq/bak", "draws"):
        (graph / folder).mkdir(parents=True)
    _write(graph / "logseq" / "config.edn", "{}")
    _write(graph / "pages" / "Kayak.md", "- a heron-blue kayak\n")
    config = tmp_path / "mnemo.yaml"
    config.write_text(yaml.safe_dump({"data_dir": str(tmp_path / "data"), "watch": {"settle_seconds": 0},
                                      "namespaces": {"me": {"sources": [{"kind": "logseq", "path": str(graph)}]}}}))
    h = Harness.__new__(Harness)
    h.config, h.cursor, h.instance = config, None, dg.DagsterInstance.ephemeral()
    h.instance.add_dynamic_partitions("namespace", ["me"])
    return h, graph


def test_attachments_and_logseq_tool_files_start_no_run(tmp_path: Path) -> None:
    h, graph = _logseq(tmp_path)
    assert h.evaluate() == []
    (graph / "assets" / "image_1700000000.png").write_bytes(b"\x89PNG pasted")
    _write(graph / "logseq" / "version-files" / "Kayak.md", "- an old version\n")
    _write(graph / "logseq" / "custom.css", "body {}")
    _write(graph / "draws" / "sketch.excalidraw", "{}")
    assert h.evaluate() == []
    _write(graph / "journals" / "2026_11_29.md", "- paddled to the island\n")
    (request,) = h.evaluate()
    assert request.tags["mnemo/changes"] == "1 new"


def test_an_obsidian_attachment_starts_no_run(harness: Harness) -> None:
    (harness.notes / "attachments").mkdir()
    (harness.notes / "attachments" / "Pasted image.png").write_bytes(b"\x89PNG")
    (harness.notes / "paper.pdf").write_bytes(b"%PDF-1.4")
    assert harness.evaluate() == []


def test_a_burst_of_saves_yields_one_run(tmp_path: Path) -> None:
    h = Harness(tmp_path, settle=0.4)
    assert h.evaluate() == []
    note = h.notes / "Draft.md"
    requests = []
    for i in range(50):  # an editor saving repeatedly, with the sensor looking in between
        _write(note, f"# Draft\nVersion {i}\n")
        requests += h.evaluate()
    assert requests == []
    time.sleep(0.5)
    requests += h.evaluate()
    requests += h.evaluate()
    assert len(requests) == 1 and requests[0].tags["mnemo/changes"] == "1 new"


def test_namespaces_without_a_partition_are_left_to_the_namespaces_sensor(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    h.instance.delete_dynamic_partition("namespace", "me")
    h.evaluate()
    _write(h.notes / "Bob.md", "# Bob\n")
    assert h.evaluate() == []


def test_debounce_waits_for_the_same_fingerprint_to_settle() -> None:
    files = {"/n/a.md": [1, 1, "aaa"]}
    state, run = step(None, files, now=0.0, settle_seconds=10)
    assert not run and state.requested == fingerprint(files)
    edited = {"/n/a.md": [2, 1, "bbb"]}
    state, run = step(state, edited, now=1.0, settle_seconds=10)
    assert not run and state.pending == fingerprint(edited)
    state, run = step(state, edited, now=5.0, settle_seconds=10)
    assert not run
    state, run = step(state, edited, now=11.5, settle_seconds=10)
    assert run and state.requested == fingerprint(edited) and state.requests == 1
    assert step(state, edited, now=30.0, settle_seconds=10) == (NamespaceWatch(edited, fingerprint(edited), requests=1), False)


def _scanned(h: Harness) -> None:
    """What an ingest run leaves for the sensor: the namespace's manifest of the files it read."""
    config = MnemoConfigResource(config_path=str(h.config)).load()
    scan_documents(NamespaceFiles(config.data_dir, "me"), config.namespace("me"))


def test_first_look_ingests_what_changed_since_the_last_ingest(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    _write(h.notes / "Old.md", "# Old\nStays as it was.\n")
    _write(h.notes / "Gone.md", "# Gone\n")
    _scanned(h)
    # While nothing watched (before `mnemo up`, or before the sensor's first look): one note
    # added, one edited, one deleted; a generated page and an attachment do not count.
    _write(h.notes / "Dropped.md", "# Dropped\nWritten before the first look.\n")
    _write(h.notes / "Alice.md", "# Alice\nWorks at Acme. Moved to Porto.\n")
    (h.notes / "Gone.md").unlink()
    (h.notes / "photo.png").write_bytes(b"\x89PNG")
    (request,) = h.evaluate()
    assert request.tags["mnemo/changes"] == "1 new, 1 changed, 1 deleted"
    assert h.evaluate() == []


def test_first_look_after_an_ingest_of_the_same_files_requests_nothing(tmp_path: Path) -> None:
    h = Harness(tmp_path)
    (h.notes / "photo.png").write_bytes(b"\x89PNG")  # never read by the scan, so never in its manifest
    _scanned(h)
    assert h.evaluate() == []
    _write(h.notes / "Bob.md", "# Bob\n")
    (request,) = h.evaluate()
    assert request.tags["mnemo/changes"] == "1 new"


def test_first_look_waits_for_a_recent_change_to_settle(tmp_path: Path) -> None:
    h = Harness(tmp_path, settle=0.4)
    _scanned(h)
    _write(h.notes / "Draft.md", "# Draft\n")
    assert h.evaluate() == []
    time.sleep(0.5)
    (request,) = h.evaluate()
    assert request.tags["mnemo/changes"] == "1 new"


def test_first_look_after_an_ingest_that_skipped_a_file_requests_nothing(tmp_path: Path) -> None:
    h, graph = _logseq(tmp_path)
    _write(graph / "pages" / "Empty.md", "\n")  # read by the scan, skipped (nothing in it), never in the manifest
    _scanned(h)
    assert [p["path"] for p in NamespaceFiles(tmp_path / "data", "me").read_problems()] == ["pages/Empty.md"]
    assert h.evaluate() == []  # `mnemo up` started on an ingested graph: nothing to ingest again


def test_a_namespace_another_shard_holds_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    h = Harness(tmp_path)
    config = yaml.safe_load(h.config.read_text(encoding="utf-8"))
    config["shards"] = {"a": {"data_dir": str(tmp_path / "a")}, "b": {"data_dir": str(tmp_path / "b")}}
    config["placement"] = {"me": "b"}
    h.config.write_text(yaml.safe_dump(config), encoding="utf-8")
    monkeypatch.setenv("MNEMO_SHARD", "a")
    with pytest.raises(MisplacedNamespace, match="'me'"):
        h.evaluate()
    assert not (tmp_path / "b" / "me").exists()  # nothing written on the other shard's data root
