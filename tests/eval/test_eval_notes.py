"""`mnemo eval notes` and `mnemo eval locomo --after-sleep`: the evaluations of recall before and
after sleep mode, on a small vault and the tiny LoCoMo file; the question set over the real vaults."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from mnemo.errors import MnemoError
from mnemo.eval.locomo import evaluate
from mnemo.eval.notes import load_questions
from mnemo.pipelines.ingest import NO_LLM, STEPS
from mnemo.sleep.consolidate import STEPS as SLEEP
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology
from tests.support import DATA, corpus, make_workspace

QA_SETS = DATA / "notes_qa"
TINY = DATA / "locomo_tiny.json"
NOTES = {
    "Daily/2025-01-06.md": "Decided with Marta to repaint the boat hull in three coats before the regatta.",
    "Daily/2025-01-07.md": "Bought marine varnish from Porto Nautica; the boat needs twelve litres.",
    "Recipes/Pastel de nata.md": "Custard tarts: puff pastry, egg yolks, sugar, lemon peel and a very hot oven.",
    "People/Marta.md": "Marta sails a small wooden boat and races in the spring regatta every year.",
}
QUESTIONS = [
    {"id": "q1", "question": "what did I plan for the boat with Marta", "gold": ["Daily/2025-01-06.md"], "kind": "fact"},
    {"id": "q2", "question": "how do you make those Portuguese custard tarts", "gold": ["Recipes/Pastel de nata.md"], "kind": "fact"},
    {"id": "q3", "question": "what did I write on January 7, 2025?", "gold": ["Daily/2025-01-07.md"], "kind": "date"},
    {"id": "q4", "question": "the note that got corrupted", "gold": ["Broken.md"], "kind": "fact"},
]


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path, Path]:
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text + "\n", encoding="utf-8")
    (vault / "Broken.md").write_bytes(b"caf\xe9 au lait, not UTF-8\n")  # quarantined by the source, never read
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    config = make_workspace(tmp_path, {}).config_path  # a config that names the hashing embedder
    return vault, qa, config


def test_eval_notes_scores_mnemo_before_and_after_sleep_against_bm25(small: tuple[Path, Path, Path], tmp_path: Path) -> None:
    vault, qa, config = small
    out = tmp_path / "report.json"
    result = CliRunner().invoke(app, ["eval", "notes", str(qa), "--vault", str(vault), "--kind", "obsidian", "--after-sleep",
                                      "--json", str(out), "--config", str(config)])
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())
    assert report["questions"] == 4 and report["after_sleep"] and report["vault"] == "vault"
    assert list(report["unreadable"]) == ["q4"] and "Broken.md" in report["unreadable"]["q4"]
    assert set(report["systems"]) == {"mnemo", "bm25", "mnemo after sleep"}
    assert list(report["steps"]["ingest"]) == list(STEPS)  # what ran, in the job's order
    assert report["steps"]["ingest"]["llm_extractions"] == NO_LLM
    assert list(report["steps"]["sleep"])[:5] == list(SLEEP)
    assert "ingest steps: forget (none cut off), documents, chunks" in result.output
    assert "sleep steps: dedup" in result.output
    for figures in report["systems"].values():
        overall = figures["overall"]
        assert 0 <= overall["hit@1"] <= overall["hit@5"] <= overall["hit@10"] <= 1 and 0 <= overall["MRR"] <= 1
        assert set(figures["by_kind"]) == {"fact", "date"} and figures["by_kind"]["fact"]["questions"] == 3
        assert overall["hit@10"] <= 0.75  # the unreadable note is found by no system
    assert report["systems"]["mnemo"]["by_kind"]["date"]["hit@1"] == 1.0  # the day the question names comes first
    assert "mnemo after sleep" in result.output and "bm25" in result.output and "could not read" in result.output


@pytest.mark.parametrize(("line", "reason"), [
    ("{not json", "qa.jsonl:2: not JSON"),
    ('{"question": "", "gold": ["a.md"]}', "qa.jsonl:2: needs a non-empty 'question'"),
    ('{"question": "where?", "gold": []}', "qa.jsonl:2: 'gold' must be a non-empty list of note paths"),
])
def test_a_malformed_question_file_names_the_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps(QUESTIONS[0]) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(MnemoError, match=reason.replace("?", r"\?").replace("[", r"\[")):
        load_questions(qa)


def test_gold_notes_missing_from_the_vault_are_a_clear_error(small: tuple[Path, Path, Path], tmp_path: Path) -> None:
    vault, qa, config = small
    (tmp_path / "bad.jsonl").write_text(json.dumps({"question": "boat", "gold": ["Nowhere.md"]}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "notes", str(tmp_path / "bad.jsonl"), "--vault", str(vault), "--kind", "obsidian",
                                      "--config", str(config)])
    said = " ".join(result.output.split())  # the terminal wraps long paths
    assert result.exit_code == 2 and "gold notes not in" in said and "Nowhere.md" in said
    result = CliRunner().invoke(app, ["eval", "notes", str(qa), "--vault", str(vault), "--kind", "roam", "--config", str(config)])
    assert result.exit_code == 2 and "unknown --kind 'roam'" in result.output


def test_locomo_after_sleep_asks_again_after_a_consolidation() -> None:
    report = evaluate(TINY, HashingEmbedder(384), load_ontology(), ks=(1, 3), systems=("mnemo", "bm25"), latency=False,
                      after_sleep=True)
    assert set(report["systems"]) == {"mnemo", "bm25", "mnemo_after_sleep"}
    after = report["systems"]["mnemo_after_sleep"]
    assert set(after["by_category"]) == {"1", "2", "3", "4"} and 0 <= after["overall"]["R@1"] <= after["overall"]["R@3"] <= 1
    assert report["latency"]["eager_after_sleep"]["p95_ms"] > 0


def test_the_question_set_covers_three_real_vaults() -> None:
    total, kinds = 0, set()
    for name in ("obsidian-kepano", "obsidian-ideaverse", "logseq-docs"):
        questions = load_questions(QA_SETS / f"{name}.jsonl")
        root = corpus(name)
        assert all((root / gold).is_file() for q in questions for gold in q.gold)
        total += len(questions)
        kinds |= {q.kind for q in questions}
    assert total >= 60 and {"alias", "date", "two-notes"} <= kinds


def test_the_consolidation_sets_name_only_notes_that_exist_and_cover_three_kinds() -> None:
    kinds: dict[str, int] = {}
    for name in ("obsidian-kepano", "obsidian-ideaverse", "logseq-docs", "obsidian-antoniolandin-es"):
        path = QA_SETS / f"{name}-consolidation.jsonl"
        root = corpus(name)
        questions = load_questions(path)
        assert [g for q in questions for g in q.gold if not (root / g).is_file()] == []
        assert all(json.loads(line).get("why") for line in path.read_text(encoding="utf-8").splitlines())
        for q in questions:
            kinds[q.kind] = kinds.get(q.kind, 0) + 1
    assert set(kinds) == {"period", "theme", "multi"} and min(kinds.values()) >= 20


CONSOLIDATION_VAULTS = ("obsidian-kepano", "obsidian-ideaverse", "logseq-docs", "obsidian-antoniolandin-es")


def test_the_held_out_consolidation_sets_are_five_of_each_kind_per_vault_and_new() -> None:
    for name in CONSOLIDATION_VAULTS:
        path = QA_SETS / f"{name}-consolidation-holdout.jsonl"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        assert all(row.get("why") and row.get("kind") in {"period", "theme", "multi"} for row in rows), name
        assert sorted(row["kind"] for row in rows) == ["multi"] * 5 + ["period"] * 5 + ["theme"] * 5, name
        main = load_questions(QA_SETS / f"{name}-consolidation.jsonl")
        assert not {q.id for q in main} & {row["id"] for row in rows} and len({row["id"] for row in rows}) == 15
        assert not {q.text.casefold() for q in main} & {row["question"].casefold() for row in rows}
    for name in CONSOLIDATION_VAULTS:  # the gold notes, only where the corpora are present
        root = corpus(name)
        questions = load_questions(QA_SETS / f"{name}-consolidation-holdout.jsonl")
        assert [g for q in questions for g in q.gold if not (root / g).is_file()] == []


MULTILINGUAL = {  # question file -> the vault its gold paths are in (`mnemo eval notes` takes one vault)
    "multilingual.jsonl": "obsidian-antoniolandin-es",
    "multilingual-logseq-docs.jsonl": "logseq-docs",
    "multilingual-obsidian-ideaverse.jsonl": "obsidian-ideaverse",
    "multilingual-obsidian-kepano.jsonl": "obsidian-kepano",
}


def test_the_multilingual_sets_say_both_languages_and_mostly_cross_them() -> None:
    rows: dict[str, list[dict]] = {}
    for name, vault in MULTILINGUAL.items():
        lines = (QA_SETS / name).read_text(encoding="utf-8").splitlines()
        rows[name] = [json.loads(line) for line in lines if line.strip()]
        assert len(load_questions(QA_SETS / name)) == len(rows[name])
        for row in rows[name]:
            assert row["vault"] == vault and row.get("why") and row["kind"] in {"fact", "alias", "two-notes"}, row["id"]
            assert {row["lang"], row["note_lang"]} <= {"en", "es", "pt", "de", "fr", "zh"}, row["id"]
    everything = [row for file in rows.values() for row in file]
    assert len(rows["multilingual.jsonl"]) >= 40 and len({row["id"] for row in everything}) == len(everything)
    spanish = rows["multilingual.jsonl"]
    assert 2 * sum(row["lang"] != row["note_lang"] for row in spanish) >= len(spanish)
    assert {row["note_lang"] for row in spanish} == {"es"}
    for name, vault in MULTILINGUAL.items():  # the gold notes, only where the corpora are present
        root = corpus(vault)
        assert [g for row in rows[name] for g in row["gold"] if not (root / g).is_file()] == [], name


def test_coverage_counts_every_gold_note_of_a_question_among_the_first_ten():
    from mnemo.eval.notes import NoteQuestion, NoteScores, summarize_notes

    scores = NoteScores()
    two = NoteQuestion("q1", "which two?", ("a.md", "b.md"), "multi")
    scores.add("mnemo", two, ["x.md", "a.md"] + [f"n{i}.md" for i in range(8)] + ["b.md"])  # b.md is 11th
    scores.add("mnemo", NoteQuestion("q2", "which one?", ("c.md",), "fact"), ["c.md"])
    report = summarize_notes(scores, "v", after_sleep=False)
    figures = report["systems"]["mnemo"]
    assert report["answers"]["mnemo"]["q1"][:2] == ["x.md", "a.md"] and len(report["answers"]["mnemo"]["q1"]) == 10
    assert figures["by_kind"]["multi"]["coverage@10"] == 0.5 and figures["by_kind"]["multi"]["hit@1"] == 0.0
    assert figures["overall"]["coverage@10"] == 0.75 and figures["by_kind"]["fact"]["coverage@10"] == 1.0
