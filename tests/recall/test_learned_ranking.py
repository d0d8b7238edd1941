"""The learned ranking: its trees are evaluated as LightGBM evaluates them, its features say what
they are named for, and a file fitted on other features is refused with a clear error."""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.fitting.ranker_fit import fit_trees, written
from mnemo.recall.learned import (
    EXTRA,
    FEATURES,
    between_people,
    features_of,
    fits,
    learned_scores,
    load_trees,
    packaged_for,
    trees_from_json,
)
from mnemo.recall.rank import SIGNALS, signals_of

QUERY = np.array([1.0, 0.0], dtype=np.float32)


def row(row_id: str, vector: list[float], text: str, *, doc: str = "doc_a", prev: str = "", nxt: str = "",
        dates: bool = False, bm25: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row_id, "doc_id": doc, "vector": vector, "prev_id": prev, "next_id": nxt, "text": text,
           "metadata": json.dumps({"dates": ["2023-05-08"]} if dates else {})}
    if bm25 is not None:
        out["_score"] = bm25
    return out


def synthetic(seed: int, questions: int = 60, per: int = 30) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidates whose label depends on two features non-linearly (what trees are for)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(questions * per, len(FEATURES)))
    y = ((x[:, 0] > 0.5) & (x[:, 3] < 0.0) | (x[:, 10] > 1.8)).astype(np.int8)
    return x, y, np.repeat(np.arange(questions), per)


def test_the_flat_trees_score_as_lightgbm_does() -> None:
    lightgbm = pytest.importorskip("lightgbm")
    x, y, question = synthetic(1)
    model = fit_trees(x, y, question, ["synthetic"])
    trees = trees_from_json(json.loads(json.dumps(model)))
    groups = np.bincount(question)
    unseen, _, _ = synthetic(2)
    reference = np.mean([lightgbm.LGBMRanker(**model["params"], random_state=seed, verbose=-1)
                         .fit(x, y, group=groups).predict(unseen) for seed in model["seeds"]], axis=0)
    assert len(model["seeds"]) > 1 and len(trees.feature) > model["params"]["n_estimators"]
    assert np.allclose(trees.predict(unseen), reference, atol=1e-9)
    assert trees.predict(unseen).std() > 0  # the trees split: not one constant


def test_the_fitted_trees_rank_the_positives_first_on_unseen_candidates() -> None:
    x, y, question = synthetic(3)
    trees = trees_from_json(fit_trees(x, y, question, ["synthetic"]))
    test_x, test_y, _ = synthetic(4)
    scores = trees.predict(test_x)
    assert scores[test_y == 1].mean() > scores[test_y == 0].mean() + 1.0


def test_the_packaged_ranker_reads_the_features_recall_computes() -> None:
    trees = load_trees()
    assert trees.features == FEATURES and len(trees.roots) >= 50
    assert set(np.unique(trees.feature)) <= set(range(len(FEATURES)))


def test_the_packaged_ranker_ranks_only_with_the_embedder_it_was_fitted_on() -> None:
    assert load_trees().embedder == "minilm-l6-v2"
    assert fits("", "minilm-l6-v2") and not fits("", "hashing-384") and not fits("", "e5-small-q4")


@pytest.mark.parametrize("embedder", ["minilm-l6-v2", "e5-small-q4"])
def test_every_shipped_embedder_has_packaged_trees_fitted_on_its_own_cosines(embedder: str) -> None:
    trees = load_trees(packaged_for(embedder))
    assert trees.embedder == embedder and trees.features == FEATURES
    assert fits(packaged_for(embedder), embedder)


def test_an_embedder_without_trees_of_its_own_is_ranked_by_the_scored_fusion() -> None:
    assert packaged_for("hashing-384") == "" and not fits(packaged_for("hashing-384"), "hashing-384")


def test_only_turns_said_by_named_people_count_as_conversations_between_people() -> None:
    def turn(speaker: str, roles: list[str], kind: str = "chat") -> dict:
        return {"kind": kind, "metadata": json.dumps({"speaker": speaker, "roles": roles})}

    assert between_people(turn("Caroline", ["user"]))  # a LoCoMo turn
    assert not between_people(turn("user", ["user"])) and not between_people(turn("assistant", ["assistant"]))
    assert not between_people(turn("Human", ["user"]))  # a Claude export's turn
    assert not between_people(turn("Ada", ["assistant"])) and not between_people(turn("Caroline", ["user"], "note"))


def test_a_ranker_fitted_on_other_features_is_refused_naming_the_file(tmp_path: Path) -> None:
    x, y, question = synthetic(5)
    model = fit_trees(x, y, question, ["synthetic"]) | {"features": ["cosine", "bm25"]}
    path = written(model, tmp_path)
    with pytest.raises(ValueError, match=r"mnemo-rankers|fitted on features|\.json"):
        load_trees(path)


def test_features_say_what_they_are_named_for() -> None:
    first = row("t1", [0.9, 0.1], "Dana baked a lemon cake for the party", nxt="t2", bm25=4.0)
    second = row("t2", [0.2, 0.9], "That sounds lovely", prev="t1", nxt="t3", dates=False)
    third = row("t3", [0.5, 0.5], "We went on 8 May", prev="t2", dates=True)
    other = row("o1", [0.1, 0.9], "Nothing about it here", doc="doc_b", bm25=1.0)
    found = signals_of([first, other], [first, second, other], {"t3": third}, QUERY, "What cake did Dana bake?")
    x = features_of(found, QUERY, "What cake did Dana bake?", None)
    column = {name: n for n, name in enumerate(FEATURES)}
    by_id = {r["id"]: x[n] for n, r in enumerate(found.rows)}
    assert x.shape == (3, len(SIGNALS) + len(EXTRA))
    assert by_id["t1"][column["lexical_rank"]] == pytest.approx(60 / 61)
    assert by_id["t2"][column["lexical_rank"]] == 0.0 and by_id["t2"][column["semantic_rank"]] == pytest.approx(60 / 62)
    assert by_id["t1"][column["coverage"]] == pytest.approx(2 / 3)  # cake, dana of cake, dana, bake
    assert by_id["t1"][column["length"]] == pytest.approx(np.log1p(8))
    assert by_id["t2"][column["neighbour_dated"]] == 1.0 and by_id["t1"][column["neighbour_dated"]] == 0.0
    assert by_id["t1"][column["rank_in_document"]] == 0.0 and by_id["t2"][column["rank_in_document"]] > 0.0
    assert by_id["t1"][column["hits_in_document"]] == 2 and by_id["o1"][column["hits_in_document"]] == 1
    assert (x[:, column["in_named_days"]] == 0).all()  # the query names no day
    best = max(found.cosine[i] for i in ("t1", "t2", "t3"))
    assert by_id["t2"][column["session_best_cosine"]] == pytest.approx(best)


def test_a_hit_said_on_a_day_the_query_names_is_marked() -> None:
    on_day = row("d1", [0.9, 0.1], "We baked bread") | {"timestamp": "2023-05-08T13:56:00"}
    before = row("d2", [0.9, 0.1], "We baked bread again") | {"timestamp": "2023-04-30T09:00:00"}
    query = "What did Dana bake on 8 May 2023?"
    found = signals_of([], [on_day, before], {}, QUERY, query)
    x = features_of(found, QUERY, query, None)
    named = {r["id"]: x[n, FEATURES.index("in_named_days")] for n, r in enumerate(found.rows)}
    assert named == {"d1": 1.0, "d2": 0.0}


def test_learned_scores_are_positive_and_follow_the_trees() -> None:
    near = row("near", [1.0, 0.0], "Dana baked a lemon cake", bm25=5.0)
    far = row("far", [0.0, 1.0], "The weather was grey")
    found = signals_of([near], [near, far], {}, QUERY, "What cake did Dana bake?")
    scores = learned_scores(found, QUERY, "What cake did Dana bake?", None)
    assert (scores > 0).all()
    assert scores[[r["id"] for r in found.rows].index("near")] > scores[[r["id"] for r in found.rows].index("far")]
