"""The note graph and the themes recall reads, made at sleep time so that recall stays fast.

- **Links**: two notes are linked when one names the other's entity (a wikilink, a property,
  an extracted relation; either way) with weight 1, or when both name an entity that has no note
  of its own (a shared mention) with weight `SHARED_WEIGHT`, less for an entity many notes name.
- **Themes**: each level-0 community (its central members' notes first, then the others'), and
  each hub note, one that `HUB_LINKS` or more notes link with (its linked notes). A theme has
  words (its title and its central members' names) and a vector (the mean of its members'
  name vectors, or the hub's), which a question is matched against.
- **Note vectors**: the mean of each note's passage vectors, to weigh a linked note by how near
  it is to the question.

Written as `sleep/state/themes.json` (ids, links, themes) and `sleep/state/themes.npy` (the
vectors: one row per note of `notes`, then one per theme). Notes only: chats are never linked.
"""

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.sleep.store import SleepFiles
from mnemo.sleep.view import FactsView
from mnemo.stores.vectors import VectorStore

SHARED_WEIGHT = 0.5  # a shared mention of an entity without a note of its own
SHARED_LIMIT = 20  # an entity named by more notes than this ties none of them
HUB_LINKS = 5  # a note linked with this many notes or more is a hub, a theme of its own
THEME_NOTES = 12  # notes a theme offers, central first
NOTE_CHUNKS = 8  # passages of a note recall may pick from


@dataclass
class ThemeIndex:
    """What `write_themes` writes: notes with their passages, links, themes and vectors."""

    notes: list[str]  # doc ids, in the order of the first rows of `vectors`
    chunks: dict[str, list[str]]  # doc id -> its first passages, in order
    links: dict[str, dict[str, float]]  # doc id -> linked doc id -> weight
    themes: list[dict[str, Any]]  # id, title, kind (community | hub), words, notes (doc ids)
    vectors: np.ndarray  # unit rows: notes, then themes

    def to_json(self) -> dict[str, Any]:
        return {"notes": self.notes, "chunks": self.chunks, "links": self.links, "themes": self.themes}


def note_refs(view: FactsView) -> dict[str, set[str]]:
    """Note doc id -> the entities it names: by its passages' mentions and its own entity's relations."""
    note_of = {c: note for note, chunks in view.note_chunks.items() for c in chunks}
    pages = page_of(view)
    refs: dict[str, set[str]] = defaultdict(set)
    for chunk, entities in view.chunk_entities.items():
        if chunk in note_of:
            refs[note_of[chunk]].update(entities)
    for a, b in view.relations:
        for src, dst in ((a, b), (b, a)):
            for note in view.pages.get(src, ()):
                refs[note].add(dst)
    for note in list(refs):
        refs[note] -= {e for e in refs[note] if pages.get(e) == note}
    return refs


def page_of(view: FactsView) -> dict[str, str]:
    """Entity id -> its note (the first by id when several)."""
    return {entity: sorted(notes)[0] for entity, notes in view.pages.items() if notes}


def note_links(view: FactsView) -> dict[str, dict[str, float]]:
    """Note -> linked note -> weight (symmetric): a named entity's note weighs 1, a shared mention
    of an entity without a note SHARED_WEIGHT divided by the notes that name it beyond two."""
    pages, refs = page_of(view), note_refs(view)
    links: dict[str, dict[str, float]] = defaultdict(dict)

    def tie(a: str, b: str, weight: float) -> None:
        if a != b and a in view.notes and b in view.notes:
            links[a][b] = links[b][a] = max(links[a].get(b, 0.0), weight)

    named_by: dict[str, list[str]] = defaultdict(list)
    for note, entities in refs.items():
        for entity in entities:
            if entity in pages:
                tie(note, pages[entity], 1.0)
            else:
                named_by[entity].append(note)
    for notes in named_by.values():
        if 2 <= len(notes) <= SHARED_LIMIT:
            weight = SHARED_WEIGHT * 2 / len(notes)
            for i, a in enumerate(sorted(notes)):
                for b in sorted(notes)[i + 1:]:
                    tie(a, b, weight)
    return {note: dict(sorted(others.items())) for note, others in sorted(links.items())}


def _unit(rows: list[np.ndarray], dimension: int) -> np.ndarray:
    """The mean of the rows, scaled to length 1 (zeros when there are none)."""
    if not rows:
        return np.zeros(dimension, dtype=np.float32)
    mean = np.mean(rows, axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm else mean).astype(np.float32)


def _community_themes(view: FactsView, communities: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    pages = page_of(view)
    themes = []
    for cid, row in sorted(communities.items()):
        if row["level"] != 0:
            continue
        central = list(row["key_entities"])
        members = central + sorted(set(json.loads(row["members"])) - set(central), key=lambda e: -view.degree(e))
        notes = list(dict.fromkeys(pages[e] for e in members if e in pages))[:THEME_NOTES]
        names = [view.shown_name(e) for e in central if e in view.entities]
        if len(notes) >= 2:
            themes.append({"id": cid, "title": row["title"], "kind": "community", "words": names,
                           "notes": notes, "entities": members})
    return themes


def _hub_themes(view: FactsView, links: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    pages = page_of(view)
    entity_of = {note: entity for entity, note in sorted(pages.items(), reverse=True)}
    themes = []
    for note, others in links.items():
        direct = [o for o, w in others.items() if w >= 1.0]
        if len(direct) >= HUB_LINKS and note in entity_of:
            entity = entity_of[note]
            ranked = sorted(direct, key=lambda o: -len(links.get(o, {})))[: THEME_NOTES - 1]
            name = view.shown_name(entity)
            themes.append({"id": f"hub:{note}", "title": name, "kind": "hub",
                           "words": [name], "notes": [note, *ranked], "entities": [entity]})
    return themes


def build_themes(view: FactsView, communities: dict[str, dict[str, Any]], vectors: VectorStore) -> ThemeIndex:
    """The note graph, themes and vectors of a namespace (see the module's docstring)."""
    chunk_vectors, entity_vectors = _vectors(vectors, "chunks"), _vectors(vectors, "entities")
    dimension = next((v.shape[0] for v in [*chunk_vectors.values(), *entity_vectors.values()][:1]), 0)
    notes = sorted(n for n, row in view.notes.items() if row.get("kind", "note") == "note" and view.note_chunks.get(n))
    links = note_links(view)
    themes = _community_themes(view, communities) + _hub_themes(view, links)
    rows = [_unit([chunk_vectors[c] for c in view.note_chunks[n] if c in chunk_vectors], dimension) for n in notes]
    rows += [_unit([entity_vectors[e] for e in t.pop("entities") if e in entity_vectors], dimension) for t in themes]
    matrix = np.vstack(rows).astype(np.float32) if rows else np.zeros((0, dimension), dtype=np.float32)
    kept = {n: view.note_chunks[n][:NOTE_CHUNKS] for n in notes}
    return ThemeIndex(notes, kept, {n: o for n, o in links.items() if n in kept}, themes, matrix)


def _vectors(vectors: VectorStore, name: str) -> dict[str, np.ndarray]:
    return vectors.vectors_of(name)


def write_themes(sleep: SleepFiles, index: ThemeIndex) -> None:
    """The index as `themes.json` and `themes.npy` under the sleep state folder (vectors first:
    a reader that sees the new JSON finds vectors as many as its notes and themes)."""
    folder = sleep.root / "state"
    folder.mkdir(parents=True, exist_ok=True)
    partial = folder / "themes.npy.partial"
    with partial.open("wb") as out:
        np.save(out, index.vectors)
    partial.replace(folder / "themes.npy")
    sleep.write_state("themes", index.to_json())


def themes_paths(namespace_root: Path) -> tuple[Path, Path]:
    """The two files `write_themes` writes."""
    folder = SleepFiles(namespace_root).root / "state"
    return folder / "themes.json", folder / "themes.npy"


def run_themes(view: FactsView, sleep: SleepFiles, vectors: VectorStore) -> int:
    """Build and write the themes after the communities step; how many themes."""
    index = build_themes(view, sleep.read_overlay("communities").nodes.get("Community", {}), vectors)
    write_themes(sleep, index)
    return len(index.themes)
