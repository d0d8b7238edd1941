"""MemoryClient on real stores: remember, recall, forget (with tombstones), entities, isolation."""

import json
import subprocess
import sys
import time

import pytest

from mnemo.client import MemoryClient
from mnemo.errors import MnemoError
from mnemo.recall.settings import RecallSettings
from tests.support import Workspace, configured

INJECTION = "x'}) DETACH DELETE n //"


def client(workspace: Workspace, namespace: str = "test", **settings: float) -> MemoryClient:
    return MemoryClient(namespace, configured(workspace, namespace).config_path,
                        settings=RecallSettings(random_share=0.0, **settings))


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    """The example vault ingested once (hashing embedder); tests that change it use their own."""
    import shutil

    from tests.support import EXAMPLE_VAULT, make_workspace

    root = tmp_path_factory.mktemp("ingested")
    shutil.copytree(EXAMPLE_VAULT, root / "vault")
    workspace = make_workspace(root, {"test": [{"kind": "obsidian", "path": str(root / "vault")}]})
    workspace.ingest()
    return workspace


def test_remember_is_durable_recallable_at_once_then_ingested(workspace: Workspace) -> None:
    memory = client(workspace, "fresh").remember("Lunch with person_id:alice at the Nepali place on Rua do Benformoso")
    assert memory.status == "recallable"
    stored = json.loads((workspace.files("fresh").root / "inbox" / f"{memory.id}.json").read_text())
    assert stored["text"].startswith("Lunch with") and stored["entities"][0]["kind"] == "person"
    assert client(workspace, "fresh").memory(memory.id).status == "recallable"
    assert client(workspace, "fresh").recall("Nepali lunch place").items[0].text.startswith("Lunch with")
    workspace.ingest("fresh")
    c = client(workspace, "fresh")
    assert c.memory(memory.id).status == "ingested"
    result = c.recall("Nepali lunch place")
    assert result.items[0].text.startswith("Lunch with person_id:alice")
    assert "person_id:alice" in result.grounding


def test_entity_forms_properties_and_relations(workspace: Workspace) -> None:
    c = client(workspace, "people")
    c.remember("Met the new hire", entities=[
        "person_id:bob",
        {"person_id": "carol", "properties": {"role": "designer"}},
        {"kind": "person", "id": "dave", "relations": [{"role": "works_at", "target": "organization_id:acme"}]},
    ])
    workspace.ingest("people")
    c = client(workspace, "people")
    assert c.get_entity("person_id:bob")["kind"] == "person"
    carol = c.get_entity("person_id:carol", props=True)
    assert carol["properties"]["role"]["value"] == "designer" and carol["properties"]["role"]["since"]
    dave = c.get_entity("person_id:dave", relations=True)
    assert [(r["type"], r["dst"]) for r in dave["relations"]] == [("works_at", "organization_acme")]
    with pytest.raises(MnemoError, match="invalid entity"):
        c.remember("bad", entities=[{"name": "nobody"}])
    with pytest.raises(MnemoError, match="empty"):
        c.remember("   ")


def test_entity_properties_keep_their_history_in_the_order_they_were_said(workspace: Workspace) -> None:
    c = client(workspace, "history")
    first = c.remember("Carol joined", entities=[{"person_id": "carol", "properties": {"role": "designer", "team": "web"}}])
    second = c.remember("Carol promoted", entities=[{"person_id": "carol", "properties": {"role": "design lead", "team": "web"}}])
    workspace.ingest("history")
    carol = client(workspace, "history").get_entity("person_id:carol", props=True)["properties"]
    assert carol["role"] == {"value": "design lead", "since": second.created, "history": [
        {"value": "designer", "since": first.created}, {"value": "design lead", "since": second.created}]}
    assert carol["team"] == {"value": "web", "since": first.created, "history": [{"value": "web", "since": first.created}]}
    assert "type" not in carol


def test_get_entity_from_the_vault(ingested: Workspace) -> None:
    alice = client(ingested).get_entity("person_id:alice_chen", props=True, content=True, relations=True)
    assert alice["name"] == "Alice Chen" and "Ali" in alice["aliases"]
    assert alice["properties"]["role"]["value"] == "Robotics engineer"
    assert "Tech lead on [[Project Heron]]" in alice["content"]
    assert ("works_at", "organization_acme_robotics") in {(r["type"], r["dst"]) for r in alice["relations"]}
    with pytest.raises(MnemoError, match="no entity"):
        client(ingested).get_entity("person_id:nobody_here")


def test_forget_memory_survives_reingest(workspace: Workspace) -> None:
    c = client(workspace, "mem")
    keep = c.remember("The spare key is under the blue flowerpot")
    drop = c.remember("The wifi password at the cabin is heron-42")
    workspace.ingest("mem")
    c = client(workspace, "mem")
    assert any("heron-42" in i.text for i in c.recall("cabin wifi password").items)
    c.forget(memory=drop.id)
    assert not any("heron-42" in i.text for i in c.recall("cabin wifi password").items)
    assert not any("heron-42" in r for r in c.vectors.table("chunks").to_arrow().column("text").to_pylist())
    workspace.ingest("mem")
    assert not any("heron-42" in i.text for i in client(workspace, "mem").recall("cabin wifi password").items)
    assert client(workspace, "mem").memory(keep.id).status == "ingested"


def test_forget_entity_everywhere_and_across_reingest(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    assert "person_id:alice_chen" in c.recall("Alice Chen behavior trees").grounding
    report = c.forget(entity="person_id:alice_chen")
    assert "person_alice_chen" in report.entities and report.docs
    for result in (c.recall("Alice Chen behavior trees"), client(workspace).recall("Ali Shenzhen startup")):
        assert "person_id:alice_chen" not in result.grounding
        assert all(i.path != "People/Alice Chen.md" for i in result.items)
    with pytest.raises(MnemoError):
        c.get_entity("person_id:alice_chen")
    assert workspace.vectors().table("entities").count_rows("id = 'person_alice_chen'") == 0
    workspace.ingest()
    c = client(workspace)
    with pytest.raises(MnemoError):
        c.get_entity("person_id:alice_chen")
    assert all(i.path != "People/Alice Chen.md" for i in c.recall("Shenzhen warehouse automation startup").items)
    assert c.get_entity("person_id:bob_martins")["name"] == "Bob Martins"


def test_partial_forget_of_a_property_and_a_relation(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    c.forget(entity="person_id:alice_chen", properties=["birthday"], relations=["lives_in"])
    for reingest in (False, True):
        if reingest:
            workspace.ingest()
        alice = client(workspace).get_entity("person_id:alice_chen", props=True, relations=True)
        assert "birthday" not in alice["properties"] and "role" in alice["properties"]
        types = {r["type"] for r in alice["relations"]}
        assert "lives_in" not in types and "works_at" in types


def test_fuzzy_forget_is_a_dry_run_until_confirmed(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    plan = c.forget(query="Porto weekend half marathon")
    assert plan.dry_run and plan.chunks
    assert any(i.id in plan.chunks for i in c.recall("Porto weekend half marathon").items)
    done = c.forget(query="Porto weekend half marathon", confirm=True)
    assert set(done.chunks) == set(plan.chunks) and not done.dry_run
    workspace.ingest()
    assert not any(i.id in plan.chunks for i in client(workspace).recall("Porto weekend half marathon", k=50).items)


def test_namespaces_are_isolated(workspace: Workspace) -> None:
    a, b = client(workspace, "alpha"), client(workspace, "beta")
    a.remember("Alpha's secret recipe uses smoked paprika")
    b.remember("Beta plays the cello on Sundays")
    workspace.ingest("alpha")
    workspace.ingest("beta")
    a, b = client(workspace, "alpha"), client(workspace, "beta")
    assert all("cello" not in i.text for i in a.recall("cello Sundays smoked paprika").items)
    assert all("paprika" not in i.text for i in b.recall("cello Sundays smoked paprika").items)
    with pytest.raises(MnemoError):
        MemoryClient("../alpha", workspace.config_path)


def test_injection_strings_are_data(workspace: Workspace) -> None:
    c = client(workspace, "hostile")
    c.remember(f"Mallory said {INJECTION}", entities=[{"person_id": "mallory", "properties": {"name": INJECTION}}])
    workspace.ingest("hostile")
    before = workspace.graph("hostile").counts()
    c = client(workspace, "hostile")
    result = c.recall(INJECTION)
    assert "person_id:mallory" in result.grounding
    assert c.get_entity("person_id:mallory", props=True)["properties"]["name"]["value"] == INJECTION
    with pytest.raises(MnemoError, match="invalid entity reference"):
        c.get_entity(f"person_id:{INJECTION}")
    c.forget(query=INJECTION)
    assert workspace.graph("hostile").counts() == before


def test_context_only_and_time_filtered_recall(ingested: Workspace) -> None:
    c = client(ingested)
    around = c.recall(context=["person_id:alice_chen"])
    assert around.items and all("graph" in i.reasons for i in around.items)
    assert "person_id:alice_chen" in around.grounding
    late = c.recall("Heron", since="2026-10-01", k=20)
    dated = [i for i in late.items if i.timestamp]  # the bounds hold dated items; undated notes pass
    assert dated and all(i.timestamp >= "2026-10-01" for i in dated)
    deliberate = c.recall("What does Alice Chen work on?", mode="deliberate", as_of="2026-11-01")
    assert any(i.kind == "relation" for i in deliberate.items)
    with pytest.raises(ValueError):
        c.recall()


def test_recall_degrades_when_another_process_holds_the_graph(ingested: Workspace) -> None:
    path = ingested.files().graph_path  # a new client: no view of the graph yet, recall must read the database
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import kuzu, time; db = kuzu.Database({str(path)!r}); print('held', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        result = client(ingested, graph_wait=0.5).recall("Who is Alice Chen?")
        assert time.monotonic() - started < 10
        assert result.degraded and "locked" in result.degraded
        assert any(i.path == "People/Alice Chen.md" for i in result.items)
    finally:
        holder.kill()
        holder.wait()
    assert client(ingested).recall("Who is Alice Chen?").degraded is None


def test_recall_runs_its_vector_math_on_one_blas_thread_and_restores_it(ingested: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """The full-text search runs on another thread meanwhile: a second BLAS thread would only contend."""
    from threadpoolctl import threadpool_info, threadpool_limits

    from mnemo.recall import table_reads as recall

    def blas_threads() -> set[int]:
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    seen: list[set[int]] = []
    search = recall.semantic

    def watched(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        seen.append(blas_threads())
        return search(*args, **kwargs)

    monkeypatch.setattr(recall, "semantic", watched)
    with threadpool_limits(limits=2, user_api="blas"):
        assert blas_threads() == {2}
        assert client(ingested).recall("Who leads Project Heron?", k=3).items
        assert seen and all(found == {1} for found in seen)
        assert blas_threads() == {2}
