"""Fitting the learned ranking (`recall.learned`): LightGBM's LambdaRank over the candidates of
the training conversations, one query group per question, the label whether the candidate is
one of its evidence turns; the trees are then written as the flat arrays recall evaluates.

The parameters were chosen among a few settings (LambdaRank with depth-3 trees, with 15-leaf
trees, a binary objective; more and slower trees, a shorter truncation, larger leaves; one model
against the mean of five on samples of rows and features) by the same leave-one-conversation-out
protocol that reports the figure, so that choice is in-sample; the trees themselves never see the
held-out conversation.
"""

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.fitting import fitting_library
from mnemo.recall.learned import FEATURES

PARAMS: dict[str, Any] = {
    "n_estimators": 200, "learning_rate": 0.05, "num_leaves": 7, "max_depth": 3, "min_child_samples": 50,
    "lambdarank_truncation_level": 20, "subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8, "verbose": -1,
}
LEAF_THRESHOLD = 1e300
SEEDS = (0, 1, 2, 3, 4)  # one model per seed, each on its own samples of rows and features; the ranker is their mean


def fit_trees(x: np.ndarray, y: np.ndarray, question: np.ndarray, fitted_on: list[str],
              seeds: tuple[int, ...] = SEEDS) -> dict[str, Any]:
    """The ranker as `ranker.json` holds it, fitted on rows grouped by question (`question`:
    each row's question index, rows of one question together): the trees of one model per seed,
    each leaf's value divided by the number of models."""
    lightgbm = fitting_library("lightgbm")
    starts = np.flatnonzero(np.r_[True, question[1:] != question[:-1]])
    groups = np.diff(np.r_[starts, len(question)])
    trees = []
    for seed in seeds:
        model = lightgbm.LGBMRanker(**PARAMS, random_state=seed).fit(x, y, group=groups)
        trees += [_flat(info["tree_structure"], len(seeds)) for info in model.booster_.dump_model()["tree_info"]]
    width = max(len(t["value"]) for t in trees)
    arrays = {key: [_padded(key, t[key], width) for t in trees] for key in trees[0]}
    return {"features": list(FEATURES), "depth": int(PARAMS["max_depth"]), "trees": arrays, "fitted_on": fitted_on,
            "params": {k: v for k, v in PARAMS.items() if k != "verbose"}, "seeds": list(seeds)}


def _flat(root: dict[str, Any], models: int) -> dict[str, list[Any]]:
    """One LightGBM tree (nested dicts) as arrays indexed by node, its leaf values divided by the
    number of models averaged; a leaf points to itself (its threshold, never compared, is a large
number: JSON has no infinity)."""
    out: dict[str, list[Any]] = {"feature": [], "threshold": [], "left": [], "right": [], "value": []}

    def visit(node: dict[str, Any]) -> int:
        n = len(out["value"])
        for key in out:
            out[key].append(0)
        if "leaf_value" in node or "split_feature" not in node:
            out["threshold"][n], out["left"][n], out["right"][n] = LEAF_THRESHOLD, n, n
            out["value"][n] = float(node.get("leaf_value", 0.0)) / models
            return n
        if node.get("decision_type", "<=") != "<=":
            raise ValueError(f"unsupported split {node.get('decision_type')!r}")
        out["feature"][n], out["threshold"][n] = int(node["split_feature"]), float(node["threshold"])
        out["left"][n] = visit(node["left_child"])
        out["right"][n] = visit(node["right_child"])
        return n

    visit(root)
    return out


def _padded(key: str, values: list[Any], width: int) -> list[Any]:
    """One of a tree's arrays grown to `width` nodes with unreachable leaves that point to themselves."""
    extra = range(len(values), width)
    if key in ("left", "right"):
        return values + list(extra)
    return values + [LEAF_THRESHOLD if key == "threshold" else 0] * len(extra)


def written(model: dict[str, Any], folder: Path | None = None) -> str:
    """The model written as JSON under `folder` (a temporary one by default), named by its content."""
    text = json.dumps(model, sort_keys=True)
    where = folder or Path(tempfile.gettempdir()) / "mnemo-rankers"
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    path.write_text(text, encoding="utf-8")
    return str(path)
