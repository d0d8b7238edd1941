"""Two namespaces with the same people and the same sentences: nothing of one reaches the other.

Random recalls and graph lookups in namespace `a` never return anything of `b`, and
whole-namespace operations on `a` (ingest, backup and forced restore, export) leave `b`'s
canonical dump unchanged.
"""

from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.config import EmbedderConfig
from mnemo.maintenance.backup import backup_namespace, restore_namespace
from mnemo.maintenance.dump import canonical_dump, differences
from mnemo.maintenance.export import export_namespace
from mnemo.recall.hybrid import recall_chunks
from mnemo.stores.embedders import build_embedder
from ontology import load_ontology
from tests.stores.test_crash_consistency import small_vault
from tests.support import Workspace, make_workspace

SECRETS = {"a": "alpha-7731", "b": "bravo-9902"}
WORDS = ["Alice", "Chen", "Acme", "Heron", "Lisbon", "vault", "code", "secret", "robotics", "alpha-7731", "bravo-9902", "Ali", "the"]


@pytest.fixture(scope="module")
def tenants(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    root = tmp_path_factory.mktemp("tenants")
    sources = {}
    for ns, secret in SECRETS.items():
        vault = small_vault(root / f"vault-{ns}")
        (vault / "People" / "Alice Chen.md").write_text(
            f"---\ntype: person\naliases: [Ali]\n---\nAlice Chen keeps the vault code {secret} in her head.\n", encoding="utf-8")
        sources[ns] = [{"kind": "obsidian", "path": str(vault)}]
    ws = make_workspace(root, sources)
    for ns in SECRETS:
        ws.ingest(ns)
    return ws


def chunk_ids(ws: Workspace, ns: str) -> set[str]:
    return {c.id for c in ws.files(ns).read_chunks()}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), ns=st.sampled_from(["a", "b"]), k=st.integers(1, 20))
def test_random_recalls_and_lookups_stay_in_their_namespace(tenants: Workspace, words: list[str], ns: str, k: int) -> None:
    other = "b" if ns == "a" else "a"
    own = chunk_ids(tenants, ns)
    items = recall_chunks(tenants.vectors(ns), build_embedder(EmbedderConfig(kind="hashing")), " ".join(words), k)
    assert all(item.chunk_id in own and SECRETS[other] not in item.text for item in items)
    rows = tenants.graph(ns).query(
        "MATCH (e:Entity)<-[:MENTIONS]-(c:Chunk) WHERE e.name CONTAINS $w OR c.text CONTAINS $w RETURN c.id AS id, c.text AS text",
        {"w": words[0]},
    )
    assert all(r["id"] in own and SECRETS[other] not in r["text"] for r in rows)


def test_whole_namespace_operations_leave_the_other_namespace_untouched(tenants: Workspace, tmp_path: Path) -> None:
    ontology = load_ontology()
    data = tenants.config.data_dir
    before = canonical_dump(data, "b", ontology)
    assert any(SECRETS["b"] in c.text for c in tenants.files("b").read_chunks())
    archive = backup_namespace(data, "a", tmp_path / "a.tar").path
    restore_namespace(archive, data, force=True)
    export = export_namespace(data, "a", ontology, tmp_path / "export")
    tenants.ingest("a")
    assert differences(canonical_dump(data, "b", ontology), before) == []
    exported = " ".join(str(pl.read_parquet(p).to_dicts()) for p in export.path.rglob("*.parquet"))
    assert SECRETS["a"] in exported and SECRETS["b"] not in exported
    assert {p.name for p in data.iterdir() if p.is_dir()} == {"a", "b"}
