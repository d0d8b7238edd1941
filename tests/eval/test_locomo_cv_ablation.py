"""The LoCoMo ablation (benchmarks/fitting/locomo_cv_ablation.py, benchmarks/locomo_cv_ablation.py): every
variant held out, signals a variant leaves out weigh nothing, one command writes the table."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from benchmarks.fitting.locomo_cv import FITTED, Candidates
from benchmarks.fitting.locomo_cv_ablation import BEFORE, VARIANTS, Variant, ablate, masked
from mnemo.eval.locomo import load_conversations, prepare
from mnemo.recall.learned import FEATURES
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology
from tests.eval.test_locomo_cv import three_conversations
from tests.support import REPO


def test_a_left_out_signal_is_zero_for_the_fit() -> None:
    part = Candidates(np.ones((4, len(FEATURES))), np.array([1, 0, 1, 0], dtype=np.int8), np.zeros(4, dtype=np.int64),
                      np.array([2]))
    [kept] = masked([part], BEFORE)
    dated = [list(FITTED).index("dated"), list(FITTED).index("dated_when")]
    assert not kept.x[:, dated].any() and kept.x[:, 0].all() and part.x[:, dated].all()
    assert kept.x[:, len(FITTED):].all()  # the learned ranking's own features are not the linear fit's to mask


def test_each_variant_is_fitted_per_fold_and_held_out(tmp_path: Path) -> None:
    conversations = load_conversations(three_conversations(tmp_path / "three.json"))
    prepared = [prepare(c, tmp_path / str(i), HashingEmbedder(384), load_ontology(), RecallSettings())
                for i, c in enumerate(conversations)]
    variants = (Variant("before", "eager", BEFORE), Variant("second round", "deliberate", tuple(FITTED),
                                                            {"second_round_weight": 0.5}))
    rows = ablate(prepared, RecallSettings(), variants)
    assert [r["name"] for r in rows] == ["before", "second round"]
    assert all(len(r["folds"]) == 3 and r["scores"]["questions"] == 15 for r in rows)
    assert all(f["weights"]["dated_weight"] == 0 and f["weights"]["dated_when_weight"] == 0 for f in rows[0]["folds"])
    assert set(rows[1]["scores"]["latency"]) == {"deliberate"}


def test_the_benchmark_writes_the_table_in_one_command(tmp_path: Path) -> None:
    data = three_conversations(tmp_path / "three.json")
    done = subprocess.run([sys.executable, "-m", "benchmarks.locomo_cv_ablation", str(data), "--embedder", "hashing",
                           "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out")],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    [summary] = (tmp_path / "out").glob("locomo_cv_ablation-*.md")
    report = json.loads(summary.with_suffix(".json").read_text())
    assert len(report["variants"]) == len(VARIANTS) == 9 and "| BM25 |" in summary.read_text()
    assert "deliberate + all three" in done.stdout
