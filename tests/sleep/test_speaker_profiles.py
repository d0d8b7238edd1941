"""Speaker profile items: built by sleep mode from each person's own turns, grouped by topic,
citing the turns, and recallable."""

import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from mnemo.client import MemoryClient
from mnemo.config import SleepConfig
from mnemo.documents import Chunk
from mnemo.recall.settings import RecallSettings
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.speaker_profiles import about_self, build_speaker_profiles
from tests.support import make_workspace


def turn(chunk_id: str, speaker: str, text: str, day: int) -> Chunk:
    return Chunk(id=chunk_id, namespace="t", doc_id=f"doc_{day}", position=0, heading="", text=f"{speaker}: {text}",
                 path="c.json", title="chat", kind="chat", timestamp=f"2024-03-{day:02d}T10:00:00",
                 metadata={"speaker": speaker, "speakers": [speaker]})


def test_only_what_a_speaker_says_of_themselves_is_kept() -> None:
    assert about_self("Thanks! I love camping with my kids. What about you?") == "I love camping with my kids."
    assert about_self("I'm a nurse at the county hospital.") == "I'm a nurse at the county hospital."
    assert about_self("That sounds great! See you soon.") == ""


def test_items_group_a_speakers_turns_by_topic_and_cite_them() -> None:
    chunks = [
        turn("c1", "Ana", "I love camping by the lake.", 1),
        turn("c2", "Ana", "I work night shifts at the hospital.", 2),
        turn("c3", "Ana", "My favourite trip was camping in the mountains.", 3),
        turn("c4", "Ana", "I'm tired after my shifts at the hospital.", 4),
        turn("c5", "Ben", "I love camping too.", 4),
        turn("c6", "Ana", "I enjoy baking bread.", 5),
        turn("c7", "Ana", "What time is it?", 6),
    ]
    camping, work, bread = np.array([1.0, 0.1, 0.0]), np.array([0.0, 1.0, 0.1]), np.array([0.1, 0.0, 1.0])
    vectors = {"c1": camping, "c2": work, "c3": camping + 0.05, "c4": work + 0.05, "c5": camping, "c6": bread,
               "c7": camping}
    items = build_speaker_profiles(chunks, vectors)["items"]
    assert sorted((i["speaker"], tuple(i["sources"])) for i in items) == [("Ana", ("c1", "c3")), ("Ana", ("c2", "c4"))]
    hospital = next(i for i in items if i["sources"] == ["c2", "c4"])
    assert hospital["text"] == "Ana, in their own words: I work night shifts at the hospital. " \
                               "I'm tired after my shifts at the hospital."


CONVERSATION = {"sample_id": "s", "conversation": {
    "speaker_a": "Ana", "speaker_b": "Ben",
    "session_1_date_time": "9:05 am on 3 March, 2024", "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I love hiking mountain trails with my dog."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice, the weather was great."},
        {"speaker": "Ana", "dia_id": "D1:3", "text": "I enjoy baking sourdough bread every Sunday."}],
    "session_2_date_time": "6:40 pm on 20 April, 2024", "session_2": [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "How was the weekend?"},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "My dog and I climbed mountain trails again, I adore hiking."},
        {"speaker": "Ana", "dia_id": "D2:3", "text": "I also love baking sourdough bread for the neighbours."}]}}


def test_sleep_mode_builds_them_and_recall_returns_them_citing_the_turns(tmp_path: Path) -> None:
    source = tmp_path / "chats"
    source.mkdir()
    (source / "chat.json").write_text(json.dumps([CONVERSATION]), encoding="utf-8")
    workspace = make_workspace(tmp_path, {"test": [{"kind": "locomo", "path": str(source)}]})
    workspace.ingest()
    files = workspace.files()
    report = consolidate(files, workspace.graph(), SleepConfig(), datetime(2024, 5, 1, tzinfo=UTC), vectors=workspace.vectors())
    assert report.speakers and report.speakers >= 1
    items = json.loads((files.root / "sleep" / "state" / "speakers.json").read_text())["items"]
    turns = {c.id: c.text for c in files.read_chunks()}
    assert {i["speaker"] for i in items} == {"Ana"}
    assert all(turns[s].startswith("Ana: ") for i in items for s in i["sources"])

    settings = RecallSettings(random_share=0.0)
    weighted = settings.with_overrides(profile_weight=4.0)
    found = MemoryClient("test", workspace.config_path, settings=weighted).recall(
        "What does Ana like to do outdoors?", k=6, mode="deliberate").items
    profiles = [i for i in found if i.kind == "profile"]
    assert len(profiles) == 1 and profiles[0].text.startswith("Ana, in their own words:")
    cited = profiles[0].metadata["sources"]
    assert all(c in turns for c in cited) and any("profile" in i.reasons for i in found if i.id in cited)
    plain = MemoryClient("test", workspace.config_path, settings=settings).recall(
        "What does Ana like to do outdoors?", k=6, mode="deliberate").items
    assert not [i for i in plain if i.kind == "profile"]
