"""Communities that mean something: hubs do not glue unrelated notes together, a community is named
after the member most connected inside it, and one whose name does not reach most of its members
is kept in the graph but not written into notes or pages."""

import json
from pathlib import Path

from mnemo.eval.sleep_run import consolidate_for_eval
from mnemo.sleep.view import COHESION_FLOOR
from tests.support import make_workspace

RUST = {
    "Rust": ["Cargo", "Borrow checker", "Ownership", "Concurrency in Rust", "Crates"],
    "Cargo": ["Rust", "Crates"],
    "Borrow checker": ["Rust", "Ownership"],
    "Ownership": ["Borrow checker", "Rust"],
    "Concurrency in Rust": ["Rust", "Ownership"],
    "Crates": ["Cargo", "Rust"],
}
BOOKS = {
    "Fahrenheit 451": ["Ray Bradbury", "Dystopia", "Censorship"],
    "Ray Bradbury": ["Fahrenheit 451", "The Martian Chronicles"],
    "The Martian Chronicles": ["Ray Bradbury"],
    "Dystopia": ["Fahrenheit 451", "1984", "Censorship"],
    "1984": ["Dystopia", "George Orwell", "Censorship"],
    "George Orwell": ["1984"],
    "Censorship": ["Fahrenheit 451", "1984"],
}


def _vault(root: Path) -> Path:
    vault = root / "vault"
    vault.mkdir()
    notes = {**RUST, **BOOKS}
    for title, links in notes.items():
        body = f"Notes on {title}. " + " ".join(f"See [[{link}]]." for link in links)
        (vault / f"{title}.md").write_text(body + "\n", encoding="utf-8")
    everything = " ".join(f"[[{title}]]" for title in notes)  # hubs: every note is listed in both
    (vault / "Home.md").write_text(f"Index of the vault: {everything}\n", encoding="utf-8")
    (vault / "Reading list.md").write_text(f"Everything I keep: {everything}\n", encoding="utf-8")
    (vault / "Recipe manager.md").write_text("A side project written in [[Rust]], listed in [[Home]].\n",
                                             encoding="utf-8")
    return vault


def test_hubs_do_not_glue_clusters_and_names_reach_their_members(tmp_path: Path) -> None:
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(_vault(tmp_path))}]})
    workspace.ingest()
    report = consolidate_for_eval(workspace.pipeline())
    graph = workspace.graph()
    rows = graph.query("MATCH (c:Community) WHERE c.level = 0 RETURN c.title AS title, c.members AS members, "
                       "c.cohesion AS cohesion")
    names = {r["id"]: r["name"] for r in graph.query("MATCH (e:Entity) RETURN e.id AS id, e.name AS name")}
    communities = {r["title"]: ({names[m] for m in json.loads(r["members"])}, r["cohesion"]) for r in rows}
    assert communities
    for title, (members, cohesion) in communities.items():
        rust, books = members & set(RUST), members & set(BOOKS)
        assert not (rust and books), f"{title!r} holds {sorted(members)}"
        assert title in members and 0.0 < cohesion <= 1.0
    by_title = {t: m for t, (m, _) in communities.items()}
    assert {"Rust", "Cargo", "Ownership"} <= next(m for m in by_title.values() if "Cargo" in m)
    assert next(t for t, m in by_title.items() if "Fahrenheit 451" in m) in BOOKS
    stats = report.communities
    assert stats is not None and len(stats.cohesion) == stats.communities
    assert stats.below_floor == sum(1 for c in stats.cohesion if c["cohesion"] < COHESION_FLOOR)


def test_a_community_is_named_by_its_inside_and_hub_links_weigh_less(tmp_path: Path) -> None:
    """`Rust` has more links than any book, but none inside a group of books: it does not name the
    group, and the group named after it would reach one member of seven within two links."""
    from mnemo.sleep.communities import _central, cohesion
    from mnemo.sleep.merges import canonical_facts
    from mnemo.sleep.view import FactsView

    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(_vault(tmp_path))}]})
    workspace.ingest()
    view = FactsView(canonical_facts(workspace.files()))
    by_name = {row["name"]: eid for eid, row in view.entities.items()}
    group = frozenset(by_name[n] for n in [*BOOKS, "Rust"])
    assert max(group, key=view.degree) == by_name["Rust"]  # the old rule named the group after it
    central = _central(view, group)
    assert view.entities[central[0]]["name"] in BOOKS and by_name["Rust"] not in central[:3]
    assert cohesion(view, group, central[0]) >= COHESION_FLOOR
    assert cohesion(view, group, by_name["Rust"]) < COHESION_FLOOR
    ids, raw = view._entity_weights()
    _, damped = view.community_weights()
    home = ids.index(by_name["Home"])
    assert all(damped.get(e, 0.0) < raw[e] for e in raw if home in e)
    fahrenheit, bradbury = sorted((ids.index(by_name["Fahrenheit 451"]), ids.index(by_name["Ray Bradbury"])))
    assert damped[(fahrenheit, bradbury)] >= 1.0  # their own links keep their weight
