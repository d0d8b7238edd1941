"""Leave-one-conversation-out cross-validation of the ranking weights (benchmarks/fitting/locomo_cv.py,
benchmarks/locomo_cv.py): the weights scored on a conversation are fitted without it."""

import copy
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from benchmarks.fitting.locomo_cv import (
    FITTED,
    Candidates,
    candidates,
    cross_validate,
    fit_logistic,
    fit_ranking,
    folds,
    fused_recall,
)
from mnemo.eval.locomo import Question, load_conversations, prepare
from mnemo.recall.learned import FEATURES, load_trees
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology
from tests.support import DATA, REPO, corpus

TINY = DATA / "locomo_tiny.json"
ROOT = REPO


def three_conversations(path: Path) -> Path:
    """The tiny conversation three times, the second and third with other questions first."""
    base = load_conversations(TINY)[0]
    others = [dict(copy.deepcopy(base), sample_id=f"tiny-{i}", qa=base["qa"][i:] + base["qa"][:i]) for i in (2, 4)]
    path.write_text(json.dumps([base, *others]), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> list:  # noqa: ANN001
    root = tmp_path_factory.mktemp("cv")
    conversations = load_conversations(three_conversations(root / "three.json"))
    return [prepare(c, root / str(i), HashingEmbedder(384), load_ontology(), RecallSettings()) for i, c in enumerate(conversations)]


def test_each_conversation_is_held_out_once_and_never_fitted_on_then() -> None:
    splits = folds(5)
    assert [held for _, held in splits] == [0, 1, 2, 3, 4]
    assert all(held not in fit_on and len(fit_on) == 4 for fit_on, held in splits)


def synthetic(rng: np.random.Generator, questions: int = 200, per: int = 20) -> Candidates:
    """Candidates whose evidence the relative BM25 signal decides, with noise."""
    x = rng.random((questions * per, len(FITTED)))
    y = (x[:, 1] + 0.1 * rng.standard_normal(len(x)) > 0.85).astype(np.int8)
    asked = np.repeat(np.arange(questions), per)
    return Candidates(x, y, asked, np.maximum(np.bincount(asked, weights=y, minlength=questions), 1))


def test_the_fits_weigh_the_signal_that_separates_evidence() -> None:
    rng = np.random.default_rng(0)
    parts = [synthetic(rng), synthetic(rng)]
    for fit in (fit_logistic, fit_ranking):
        weights = fit(parts)
        assert set(weights) == set(FITTED.values())
        others = [abs(v) for k, v in weights.items() if k not in ("bm25_weight", "cosine_weight")]
        assert weights["bm25_weight"] > 3 * max(others), (fit.__name__, weights)


def test_fused_recall_counts_evidence_in_each_questions_top_k() -> None:
    x = np.asarray([[0.9], [0.1], [0.5], [0.2], [0.8]])
    parts = [Candidates(x, np.asarray([0, 1, 1, 0, 1], np.int8), np.asarray([0, 0, 1, 1, 1]), np.asarray([2, 2]))]
    assert fused_recall(parts, np.asarray([1.0]), k=1) == pytest.approx((0 / 2 + 1 / 2) / 2)
    assert fused_recall(parts, np.asarray([-1.0]), k=1) == pytest.approx((1 / 2 + 0 / 2) / 2)
    assert fused_recall(parts, np.asarray([1.0]), k=3) == pytest.approx((1 / 2 + 2 / 2) / 2)


def test_coordinate_ascent_ranks_at_least_as_well_as_the_logistic_fit_it_starts_from() -> None:
    rng = np.random.default_rng(1)
    parts = [synthetic(rng), synthetic(rng)]
    as_array = lambda w: np.asarray([w[n] for n in FITTED.values()])  # noqa: E731
    assert fused_recall(parts, as_array(fit_ranking(parts))) >= fused_recall(parts, as_array(fit_logistic(parts))) - 1e-3


def test_candidates_are_labelled_by_evidence_only(prepared: list) -> None:  # noqa: ANN001
    rows = candidates(prepared[0], RecallSettings())
    assert rows.x.shape[1] == len(FEATURES) and len(rows.x) == len(rows.y)
    assert list(FITTED) == list(FEATURES[:len(FITTED)])  # the linear fits read the first columns
    evidence = sum(len(q.evidence) for q in prepared[0].questions)
    assert 0 < rows.y.sum() <= evidence  # an evidence turn is a positive only when recall retrieved it


def test_a_held_out_conversation_does_not_change_the_weights_scored_on_it(prepared: list) -> None:  # noqa: ANN001
    report = cross_validate(prepared, RecallSettings(), ks=(1, 3))
    relabelled = replace(prepared[0], questions=[Question(q.text, q.category, ("D1:2",)) for q in prepared[0].questions])
    changed = cross_validate([relabelled, *prepared[1:]], RecallSettings(), ks=(1, 3))
    for fit in ("logistic", "ranking"):
        before, after = report["fits"][fit], changed["fits"][fit]
        assert after["folds"][0]["weights"] == before["folds"][0]["weights"]  # fitted on conversations 1 and 2 only
        assert after["folds"][1]["weights"] != before["folds"][1]["weights"]  # conversation 0 is in this fit
        assert after["weights_fitted_on_all"] != before["weights_fitted_on_all"]
        assert before["scores"]["questions"] == 15 and set(before["scores"]["systems"]["mnemo"]["by_category"]) == {"1", "2", "3", "4"}
    learned_before, learned_after = report["fits"]["learned"], changed["fits"]["learned"]
    assert learned_after["folds"][0]["weights"] == learned_before["folds"][0]["weights"]  # the same trees, by content
    assert all(Path(f["weights"]["ranker"]).is_file() for f in learned_before["folds"])
    assert set(report["baselines"]["systems"]) == {"bm25", "hybrid", "dense"}


def test_the_benchmark_writes_its_dated_json_and_summary(tmp_path: Path) -> None:
    data = three_conversations(tmp_path / "three.json")
    done = subprocess.run([sys.executable, "-m", "benchmarks.locomo_cv", str(data), "--embedders", "hashing", "--out", str(tmp_path / "out"),
                           "--write-ranker", str(tmp_path / "ranker.json")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    [summary] = (tmp_path / "out").glob("locomo_cv-*.md")
    report = json.loads(summary.with_suffix(".json").read_text())
    assert set(report["embedders"]) == {"hashing"} and len(report["embedders"]["hashing"]["fits"]["ranking"]["folds"]) == 3
    assert "mnemo, ranking fit, cross-validated (held out)" in summary.read_text() and "in-sample" in done.stdout
    trees = load_trees(str(tmp_path / "ranker.json"))  # the fit on all three, usable by recall
    assert trees.embedder == "hashing-384" and len(trees.roots) > 0


def test_notes_embedders_scores_each_variant_on_one_ingest(tmp_path: Path) -> None:
    corpora = corpus("obsidian-kepano").parent
    out = tmp_path / "notes.json"
    done = subprocess.run([sys.executable, "-m", "benchmarks.notes_embedders", "hashing", 'hashing:{"bm25_weight": 0}',
                           "--only", "obsidian-kepano", "--corpora", str(corpora), "--json", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())["obsidian-kepano"]
    assert set(report) == {"hashing", 'hashing:{"bm25_weight": 0}'}
    assert all(0 <= figures["MRR"] <= figures["hit@10"] <= 1 for figures in report.values())
    assert report["hashing"] != report['hashing:{"bm25_weight": 0}']  # the overrides reach recall
