"""The structural extraction with kept per-document pieces equals a full extraction after
edits, additions, deletions and renames, and reuses what it can."""

import shutil
from pathlib import Path

import pytest

from mnemo.config import NamespaceConfig, SourceConfig
from mnemo.documents import chunk_document
from mnemo.extract.fragments import FragmentCache
from mnemo.extract.structural import StructuralExtractor
from mnemo.extract.timeline import SpeakerMap
from mnemo.facts import GraphFacts
from mnemo.ingest.pipeline import build_chunks, extract_facts, graph_facts, scan_documents, update_facts
from mnemo.ingest.segments import block_index, chunk_segments
from mnemo.sources.scan import scan_namespace
from mnemo.stores.files import NamespaceFiles
from ontology import load_ontology
from tests.support import EXAMPLE_VAULT, corpus

ONTOLOGY = load_ontology()
SPEAKERS = SpeakerMap("Me")


def _extract(sources: list[SourceConfig], cache: FragmentCache | None) -> GraphFacts:
    docs = scan_namespace("t", tuple(sources), [], []).documents
    blocks = block_index(docs)
    chunks = [c for d in docs for c in (chunk_segments(d, 180, blocks) if d.segments else chunk_document(d))]
    return StructuralExtractor(ONTOLOGY, "t", SPEAKERS).extract(docs, chunks, cache)


def _same(incremental: GraphFacts, full: GraphFacts) -> None:
    tables = {t for t, rows in full.nodes.items() if rows} | {t for t, rows in incremental.nodes.items() if rows}
    for table in tables:
        assert incremental.nodes.get(table, {}) == full.nodes.get(table, {}), table
    assert {k for k, v in incremental.edges.items() if v} == {k for k, v in full.edges.items() if v}
    for key, rows in full.edges.items():
        assert incremental.edges.get(key, {}) == rows, key


def _check(sources: list[SourceConfig], folder: Path) -> FragmentCache:
    """Extract with the pieces kept in `folder` (and keep the new ones); assert it equals a full run."""
    cache = FragmentCache(folder, "salt")
    incremental = _extract(sources, cache)
    cache.save()
    _same(incremental, _extract(sources, None))
    return cache


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, path
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_incremental_extraction_equals_a_full_one_after_each_kind_of_edit(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    sources = [SourceConfig(kind="obsidian", path=vault)]
    folder = tmp_path / "cache"
    first = _check(sources, folder)
    assert first.hits == 0 and first.misses > 0
    assert _check(sources, folder).misses == 0  # nothing changed: every piece reused

    dana = vault / "People" / "Dana Kim.md"
    _edit(dana, "Advice worth keeping:", "Advice worth keeping, met at [[Lisbon]] and with Alice Chen:")
    edited = _check(sources, folder)
    assert 0 < edited.misses < edited.hits  # only the edited note's pieces were made again

    edits = [
        lambda: (vault / "Notes").mkdir(exist_ok=True),
        lambda: (vault / "Notes" / "Café Lusitano.md").write_text("---\ntype: place\naliases: [Lusitano]\n---\nCoffee.\n", encoding="utf-8"),
        lambda: _edit(dana, "aliases: [DK]", "aliases: [DK, Dana]"),
        # a second page of the same entity merges with the first, then leaves it alone again
        lambda: (vault / "Notes" / "Dana Kim.md").write_text("---\ntype: person\naliases: [Danny]\n---\nMet again.\n", encoding="utf-8"),
        lambda: _edit(vault / "Notes" / "Dana Kim.md", "aliases: [Danny]", "aliases: [Danny, DK]\nrole: Advisor"),
        lambda: (vault / "Notes" / "Dana Kim.md").unlink(),
        lambda: _edit(dana, 'lives_in: "[[Lisbon]]"', 'lives_in: "[[Porto]]"\nknows: "[[Priya Nair]]"'),
        lambda: (vault / "People" / "Bob Martins.md").rename(vault / "People" / "Robert Martins.md"),
        lambda: (vault / "People" / "Carla Duarte.md").unlink(),
        lambda: (vault / "Places").rename(vault / "Somewhere"),
    ]
    for change in edits:
        change()
        _check(sources, folder)


def test_incremental_extraction_of_chats_and_a_real_vault(tmp_path: Path) -> None:
    vault = tmp_path / "kepano"
    shutil.copytree(corpus("obsidian-kepano"), vault)
    chats = corpus("chat-exports", "chatgpt", "synthetic")
    sources = [SourceConfig(kind="obsidian", path=vault), SourceConfig(kind="chatgpt", path=chats)]
    folder = tmp_path / "cache"
    _check(sources, folder)
    notes = sorted(vault.rglob("*.md"))
    notes[len(notes) // 2].write_text(notes[len(notes) // 2].read_text(encoding="utf-8") + "\n\nSee [[Clippings]] today.\n", encoding="utf-8")
    assert _check(sources, folder).hits > 0
    notes[len(notes) // 3].unlink()
    (vault / "Notes" / "Added.md").write_text("# Added\n\nA note written just now, 2024-05-01.\n", encoding="utf-8")
    _check(sources, folder)


@pytest.mark.parametrize("salt", ["other"])
def test_a_different_salt_discards_the_kept_pieces(tmp_path: Path, salt: str) -> None:
    sources = [SourceConfig(kind="obsidian", path=EXAMPLE_VAULT)]
    cache = FragmentCache(tmp_path, "salt")
    _extract(sources, cache)
    cache.save()
    again = FragmentCache(tmp_path, salt)
    _extract(sources, again)
    assert again.hits == 0


def test_what_a_run_keeps_in_memory_equals_what_its_files_hold(tmp_path: Path) -> None:
    """Documents, chunks and facts a step hands to the next without reading the files again
    are exactly what a fresh read of the files gives, after a change too."""
    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    namespace = NamespaceConfig(sources=(SourceConfig(kind="obsidian", path=vault),))
    files = NamespaceFiles(tmp_path / "data", "t")
    for change in (lambda: None, lambda: _edit(vault / "People" / "Dana Kim.md", "Advice worth keeping:", "Advice, with Priya Nair:")):
        change()
        scan_documents(files, namespace)
        build_chunks(files, 180)
        update_facts(files, ONTOLOGY, namespace)
        kept = graph_facts(files), files.read_documents(), files.read_chunks()
        reader = NamespaceFiles(tmp_path / "data", "t")  # a session of its own: reads the files
        fresh = graph_facts(reader), reader.read_documents(), reader.read_chunks()
        assert kept[0].nodes == fresh[0].nodes and kept[0].edges == fresh[0].edges
        assert kept[1] == fresh[1] and kept[2] == fresh[2]
    assert update_facts(files, ONTOLOGY, namespace).reused  # nothing changed since: skipped
    (files.root / "facts" / "Note.parquet").unlink()
    assert not update_facts(files, ONTOLOGY, namespace).reused  # its output was touched: run again
    assert (files.root / "facts" / "Note.parquet").exists()


def test_the_facts_an_extraction_keeps_are_left_out_of_later_collections(tmp_path: Path) -> None:
    """The rows `extract_facts` builds with collections paused and keeps for later readers are
    frozen before collections resume: the first collection after the pause does not walk them all."""
    import gc

    vault = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    namespace = NamespaceConfig(sources=(SourceConfig(kind="obsidian", path=vault),))
    files = NamespaceFiles(tmp_path / "data", "t")
    scan_documents(files, namespace)
    build_chunks(files, 180)
    facts = extract_facts(files, ONTOLOGY, namespace)
    rows = [row for table in [*facts.edges.values(), *facts.nodes.values()] for row in table.values() if gc.is_tracked(row)]
    assert len(rows) > 50  # rows holding lists or dicts (a row of plain values is not tracked at all)
    walked = {id(o) for o in gc.get_objects()}  # the collector's generations; frozen objects are not in them
    assert not any(id(row) in walked for row in rows)
