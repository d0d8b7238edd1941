"""A community summary is made again only when what it is made from changed: a summary kept from
the last run is exactly the one making it again would give, whatever chunks changed."""

import random

from mnemo.documents import content_hash
from mnemo.facts import GraphFacts, edge
from mnemo.sleep.communities import EXTRACTIVE, SOURCE_CHUNKS, _central, _legacy_digest, build_communities
from mnemo.sleep.store import Overlay
from mnemo.sleep.view import FactsView

NAMES = ["Ada Brook", "Ben Carter", "Cleo Dunn", "Dev Ellis", "Eve Ford", "Finn Gale", "Gus Hale", "Ivy Jones"]
MENTIONS = [31, 26, 12, 6, 3, 2, 2, 1]  # chunks that mention each entity: the first two have more than SOURCE_CHUNKS


def _facts(texts: dict[str, str], mentions: dict[str, list[str]], names: list[str] = NAMES) -> GraphFacts:
    facts = GraphFacts()
    for n, name in enumerate(names):
        facts.add_node("Entity", {"id": f"entity_{n}", "kind": "Person", "name": name, "aliases": [], "properties": "{}"})
    for position, (chunk, text) in enumerate(sorted(texts.items())):
        facts.add_node("Chunk", {"id": chunk, "position": position, "text": text, "timestamp": ""})
        for eid in mentions[chunk]:
            facts.add_edge("MENTIONS", "Chunk", "Entity", edge("MENTIONS", chunk, eid, "doc"))
    return facts


def _vault(rng: random.Random) -> tuple[dict[str, str], dict[str, list[str]]]:
    texts, mentions = {}, {}
    for n, count in enumerate(MENTIONS):
        for i in range(count):
            chunk = f"chunk_{content_hash(str(n), str(i))[:8]}"
            others = rng.sample(range(len(NAMES)), 2)
            texts[chunk] = (f"{NAMES[n]} met {NAMES[others[0]]} about the harbour plan number {i}. "
                            f"Later {NAMES[others[1]]} wrote the budget down in a long letter.")
            mentions[chunk] = sorted({f"entity_{n}", f"entity_{others[0]}", f"entity_{others[1]}"})
    return texts, mentions


def _build(facts: GraphFacts, previous: Overlay, legacy: bool = False) -> tuple[Overlay, int]:
    members = frozenset(facts.nodes["Entity"])
    overlay, stats = build_communities(FactsView(facts), previous, None, ([members], [], 0.0), legacy=legacy)
    return overlay, stats.summarized


def test_a_kept_summary_is_the_one_made_again_after_any_chunk_change() -> None:
    rng = random.Random(5)
    texts, mentions = _vault(rng)
    overlay, made = _build(_facts(texts, mentions), Overlay())
    assert made == 1
    kept = remade = 0
    names = list(NAMES)
    for step in range(90):
        chunk = rng.choice(sorted(texts))
        if step % 2:  # a sentence naming every member moves to a chunk of a central member: picked if read
            chunk = rng.choice([c for c in sorted(texts) if {"entity_0", "entity_1"} & set(mentions[c])])
            texts = {c: t.split(" Everyone:")[0] for c, t in texts.items()}
            texts[chunk] += f" Everyone: {', '.join(rng.sample(NAMES, len(NAMES)))} met at step {step}."
        else:
            texts[chunk] += f" Then {NAMES[rng.randrange(len(NAMES))]} called about the harbour, step {step}."
        if step % 7 == 3:  # sometimes a chunk loses or gains a mention
            mentions[chunk] = sorted(set(mentions[chunk]) ^ {f"entity_{rng.randrange(len(NAMES))}"}) or mentions[chunk]
        if step % 11 == 5:  # a member renamed: the title, or the names sentences are scored by
            names[step % 3] = names[step % 3] + " Jr"
        facts = _facts(texts, mentions, names)
        overlay, made = _build(facts, overlay)
        fresh, _ = _build(facts, Overlay())
        assert overlay.to_json() == fresh.to_json(), f"step {step}: the kept summary differs from one made again"
        kept, remade = kept + (made == 0), remade + (made == 1)
    assert kept >= 10 and remade >= 10  # both ways were taken: changed chunks no sentence comes from, and sources


def test_only_the_chunks_summary_sentences_can_come_from_make_it_again() -> None:
    texts, mentions = _vault(random.Random(9))
    facts = _facts(texts, mentions)
    view = FactsView(facts)
    overlay, _ = _build(facts, Overlay())
    central = _central(view, frozenset(view.entities))
    sources = {c for eid in central for c in view.entity_chunks(eid)[:SOURCE_CHUNKS]}
    assert sources and set(texts) - sources
    for chunk in sorted(texts):  # each chunk changed alone: made again exactly when sentences come from it
        _, made = _build(_facts({**texts, chunk: texts[chunk] + " A line about the harbour."}, mentions), overlay)
        assert made == (chunk in sources), chunk


def test_rows_digested_by_the_older_rule_are_kept_once_then_digested_by_the_new() -> None:
    texts, mentions = _vault(random.Random(3))
    facts = _facts(texts, mentions)
    view = FactsView(facts)
    overlay, _ = _build(facts, Overlay())
    (cid, row), = overlay.nodes["Community"].items()
    old_rule = content_hash(_legacy_digest(view, frozenset(view.entities), {}), EXTRACTIVE)
    older = Overlay()
    older.add_node("Community", {**row, "digest": old_rule})
    upgraded, made = _build(facts, older, legacy=True)
    assert made == 0 and upgraded.nodes["Community"][cid]["digest"] == row["digest"]
    assert upgraded.nodes["Community"][cid]["summary"] == row["summary"]
    _, made = _build(facts, older, legacy=False)  # a digest of neither rule: made again
    assert made == 1
