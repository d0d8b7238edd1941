"""The plain-RAG peer of the benchmark suite reads the same sources mnemo is given."""

import json
from pathlib import Path

from benchmarks import baseline
from mnemo.stores.embedders import HashingEmbedder


def _sources(root: Path) -> tuple[Path, Path]:
    vault, chats = root / "vault", root / "chats"
    vault.mkdir()
    chats.mkdir()
    (vault / "Garden.md").write_text("---\ntags: [home]\n---\n# Garden\n\nTomatoes need water daily.\n", encoding="utf-8")
    lines = [
        {"conversation": "trip", "role": "user", "timestamp": "2024-05-01T10:00:00", "content": "Which ferry goes to Hydra?"},
        {"conversation": "trip", "role": "assistant", "timestamp": "2024-05-01T10:01:00", "content": "The Flying Cat from Piraeus."},
    ]
    (chats / "trip.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return vault, chats


def test_peer_indexes_chats_as_well_as_notes(tmp_path: Path) -> None:
    vault, chats = _sources(tmp_path)
    embedder = HashingEmbedder(64)
    counts = baseline.ingest(vault, tmp_path / "plain", embedder, chats=chats)
    assert counts == {"chunks": 2, "note_passages": 1, "chat_passages": 1}
    hits = baseline.recall(tmp_path / "plain", embedder, k=2)("ferry to Hydra")
    assert hits[0]["text"] == "user: Which ferry goes to Hydra? assistant: The Flying Cat from Piraeus."


def test_peer_without_chats_reads_only_the_vault(tmp_path: Path) -> None:
    vault, _ = _sources(tmp_path)
    counts = baseline.ingest(vault, tmp_path / "plain", HashingEmbedder(64))
    assert counts == {"chunks": 1, "note_passages": 1, "chat_passages": 0}
