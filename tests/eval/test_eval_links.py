"""`mnemo eval links`: related notes measured as link prediction. The hiding of links (seeded, the
text kept as plain words), the evaluation end to end on a tiny vault, and the real vaults."""

import json
from pathlib import Path

from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.eval.hidden_links import hide_links, link_pairs
from mnemo.eval.links import choose_threshold, score
from tests.support import make_workspace

TINY = {
    "Sailing.md": "I sail with [[Marta]] on the [[Boat]] every spring; the [[Regatta]] is in May.",
    "Marta.md": "Marta owns the [[Boat|wooden boat]] and races in the [[Regatta]].",
    "Boat.md": "A small wooden boat. Varnish from [[Porto Nautica]]. See [[Sailing#Spring]].",
    "Regatta.md": "The spring race. [[Marta]] and I entered with the [[Boat]].",
    "Porto Nautica.md": "A chandlery by the harbour that sells varnish for the [[Boat]].",
    "Recipes/Pastel de nata.md": "Custard tarts, puff pastry, egg yolks. Brought some to the [[Regatta]].",
    "Attachments.md": "An embedded picture ![[Boat]] is not a link of the owner's.",
}


def _vault(root: Path, notes: dict[str, str]) -> Path:
    for rel, text in notes.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n", encoding="utf-8")
    return root


def test_hiding_is_seeded_by_pair_and_leaves_the_link_words(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", TINY)
    pairs = link_pairs(vault, "obsidian")
    assert ("Attachments.md", "Boat.md") not in pairs and ("Boat.md", "Sailing.md") in pairs and len(pairs) == 8
    first = hide_links(vault, "obsidian", tmp_path / "a", share=0.2, seed=3)
    again = hide_links(vault, "obsidian", tmp_path / "b", share=0.2, seed=3)
    other = hide_links(vault, "obsidian", tmp_path / "c", share=0.2, seed=4)
    assert first.pairs == again.pairs != other.pairs and len(first.pairs) == 2
    assert link_pairs(first.vault, "obsidian") == pairs - first.pairs  # hidden either way, the rest kept
    everything = hide_links(vault, "obsidian", tmp_path / "all", share=1.0)
    read = {rel: (everything.vault / rel).read_text(encoding="utf-8") for rel in TINY}
    assert read["Marta.md"] == "Marta owns the wooden boat and races in the Regatta.\n"
    assert read["Boat.md"] == "A small wooden boat. Varnish from Porto Nautica. See Sailing.\n"
    assert read["Attachments.md"] == TINY["Attachments.md"] + "\n"  # an embed is not hidden
    assert (vault / "Marta.md").read_text(encoding="utf-8") == TINY["Marta.md"] + "\n"  # the original untouched


def test_logseq_page_names_keep_their_namespace(tmp_path: Path) -> None:
    graph = _vault(tmp_path / "graph", {
        "pages/Projects___Heron.md": "- with [[Alice]] #[[Tag Page]]",
        "pages/Alice.md": "- works on [[Projects/Heron]]",
        "pages/Tag Page.md": "- a tag",
    })
    assert link_pairs(graph, "logseq") == {("pages/Alice.md", "pages/Projects___Heron.md")}
    hidden = hide_links(graph, "logseq", tmp_path / "copy", share=1.0)
    assert (hidden.vault / "pages/Alice.md").read_text(encoding="utf-8") == "- works on Projects/Heron\n"
    assert (hidden.vault / "pages/Projects___Heron.md").read_text(encoding="utf-8") == "- with Alice #[[Tag Page]]\n"


def test_scores_count_hidden_links_found_and_what_was_written() -> None:
    ranked = {"a": [("b", 2.0), ("c", 0.1)], "b": [("a", 2.0)], "c": [("d", 0.3)], "journal": [("a", 1.0)]}
    partners = {"a": {"b"}, "b": {"a"}, "c": set(), "d": {"e"}}  # every note that takes related links
    assert score(ranked, partners, notes=4) == {  # a note that takes none (a journal day) is not counted
        "recall@5": 0.6667, "precision": 0.5, "written": 4, "notes written": 3, "share of notes": 0.75}
    assert score(ranked, partners, min_evidence=1.0) == {
        "recall@5": 0.6667, "precision": 1.0, "written": 2, "notes written": 2, "share of notes": 0.0}
    sweep = [{"min_evidence": 0.0, **score(ranked, partners)}, {"min_evidence": 1.0, **score(ranked, partners, 1.0)}]
    assert choose_threshold(sweep, {"precision": 0.6}) == 1.0 and choose_threshold(sweep, {"precision": 1.1}) is None


def test_eval_links_runs_end_to_end_on_a_tiny_vault(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault", TINY)
    config = make_workspace(tmp_path, {}).config_path  # the hashing embedder
    out = tmp_path / "links.json"
    result = CliRunner().invoke(app, ["eval", "links", "--vault", str(vault), "--kind", "obsidian", "--json", str(out),
                                      "--config", str(config)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["linked_pairs"] == 8 and report["hidden_pairs"] == 2 and report["notes"] == len(TINY)
    assert set(report["systems"]) == {"mnemo", "embedding baseline", "mnemo, titles not counted",
                                      "mnemo, graph evidence only",
                                      "mnemo, same budget as the baseline (top 5, no threshold)"}
    for row in [*report["systems"].values(), *report["sweep"]]:
        assert 0 <= row["recall@5"] <= 1 and 0 <= row["precision"] <= 1
    assert report["systems"]["embedding baseline"]["written"] > 0
    assert "embedding baseline" in result.output and "evidence >=" in result.output
    assert (vault / "Marta.md").read_text(encoding="utf-8") == TINY["Marta.md"] + "\n"  # read, never written


def test_an_unknown_kind_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "links", "--vault", str(tmp_path), "--kind", "notion"])
    assert result.exit_code != 0 and "unknown --kind 'notion'" in result.output
