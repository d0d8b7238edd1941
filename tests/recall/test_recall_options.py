"""Recall options `limit` (k's newer name) and `min_similarity` (a floor on each passage's cosine
similarity to the query, reported on every passage as `similarity`)."""

import numpy as np
import pytest

from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from mnemo.recall.settings import RecallSettings
from tests.support import Workspace

QUESTION = "Where did I park the car in the garage?"


def client(workspace: Workspace, random_share: float = 0.0) -> MemoryClient:
    return MemoryClient("test", workspace.config_path, settings=RecallSettings(random_share=random_share))


def test_every_passage_reports_its_cosine_similarity_to_the_query(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    c.remember("The car is parked on level -2 of the Colombo garage.")
    items = c.recall(QUESTION, limit=8).items
    assert items and all(i.similarity is not None for i in items if i.kind == "chunk")
    table = c.vectors.table("chunks")
    query = c.embedder.encode_query([QUESTION])[0]
    for item in items[:3]:
        row = table.search().where(f"id = '{item.id}'").select(["vector"]).to_list()[0]
        vector = np.asarray(row["vector"], dtype=np.float32)
        expected = float(vector @ query / (np.linalg.norm(vector) * np.linalg.norm(query)))
        assert item.similarity == pytest.approx(expected, abs=1e-5)


def test_min_similarity_drops_the_passages_below_it_and_fills_the_limit_with_the_rest(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    c.remember("The car is parked on level -2 of the Colombo garage.")
    everything = c.recall(QUESTION, limit=10).items
    cosines = sorted(i.similarity for i in everything if i.similarity is not None)
    floor = cosines[len(cosines) // 2]  # about half the passages are below it
    kept = c.recall(QUESTION, limit=10, min_similarity=floor).items
    assert kept and all(i.similarity is not None and i.similarity >= floor for i in kept if i.kind == "chunk")
    assert {i.id for i in everything if (i.similarity or -2) < floor}.isdisjoint({i.id for i in kept})
    assert [i.id for i in c.recall(QUESTION, limit=10, min_similarity=-1.0).items] == [i.id for i in everything]
    assert c.recall(QUESTION, min_similarity=1.0).items == [] or all(
        i.similarity == pytest.approx(1.0) for i in c.recall(QUESTION, min_similarity=1.0).items)


def test_min_similarity_keeps_out_random_salient_items(workspace: Workspace) -> None:
    workspace.ingest()
    drawn = client(workspace, random_share=0.5)
    floor = 0.2
    items = drawn.recall(QUESTION, limit=4, min_similarity=floor).items
    assert all("random" not in i.reasons for i in items)
    assert all(i.similarity is not None and i.similarity >= floor for i in items if i.kind == "chunk")


@pytest.mark.parametrize(("options", "problem"), [
    ({"min_similarity": 1.5}, "give a number from -1 to 1"),
    ({"min_similarity": -2}, "give a number from -1 to 1"),
    ({"limit": 0}, "invalid limit"),
    ({"limit": 3, "k": 4}, "not both"),
])
def test_bad_recall_options_are_refused(workspace: Workspace, options: dict, problem: str) -> None:
    with pytest.raises(MnemoError, match=problem):
        client(workspace).recall(QUESTION, **options)


def test_min_similarity_needs_a_query(workspace: Workspace) -> None:
    with pytest.raises(MnemoError, match="min_similarity needs a query"):
        client(workspace).recall(context=["person_id:dana_kim"], min_similarity=0.3)


def test_limit_and_k_are_the_same_option(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    assert len(c.recall(QUESTION, limit=3).items) == 3
    assert [i.id for i in c.recall(QUESTION, k=3).items] == [i.id for i in c.recall(QUESTION, limit=3).items]
    assert len(c.recall(QUESTION).items) == 10


def test_recall_after_the_only_memory_is_forgotten_finds_nothing(workspace: Workspace) -> None:
    """The chunks table can be emptied by forget before any ingest: recall answers, empty."""
    c = client(workspace)
    memory = c.remember("The car is parked on level -2 of the Colombo garage.")
    c.forget(memory.id)
    assert c.recall(QUESTION).items == []
