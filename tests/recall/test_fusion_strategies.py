"""Recall's fusion strategies (`recall.fusion`): the engine chooses one once, from its settings,
and each ranks a real index as it should (the learned trees only where they apply)."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from mnemo.errors import ConfigError
from mnemo.eval.locomo import Prepared, load_conversations, prepare
from mnemo.recall.engine import RecallEngine
from mnemo.recall.fusion import SPEAKER_FACTOR, STRATEGIES, LearnedFusion, ReciprocalRankFusion, ScoredFusion
from mnemo.recall.learned import PACKAGED
from mnemo.recall.settings import FUSIONS, Ranking, RecallSettings
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology
from tests.support import DATA

QUESTIONS = ["What breed of dog did Rosa adopt?", "When did Rosa run a 5k race?", "What does Teo make in pottery class?",
             "What did Rosa say about cats?"]


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    root = tmp_path_factory.mktemp("tiny")
    return prepare(load_conversations(DATA / "locomo_tiny.json")[0], root, HashingEmbedder(384), load_ontology(),
                   RecallSettings())


@pytest.fixture(scope="module")
def hashing_trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packaged trees, said to be fitted with the test's embedder (so they apply to it)."""
    path = tmp_path_factory.mktemp("trees") / "ranker.json"
    path.write_text(json.dumps(json.loads(PACKAGED.read_text(encoding="utf-8")) | {"embedder": "hashing-384"}))
    return path


def engine(prepared: Prepared, **ranking: str) -> RecallEngine:
    settings = RecallSettings(random_share=0.0).with_overrides(**ranking)
    base = prepared.engine
    return RecallEngine(base.root, base.vectors, base.graph, base.embedder, settings, seed=0, session=base.session)


def answers(recall: RecallEngine) -> list[list[tuple[str, float]]]:
    return [[(i.id, i.score) for i in recall.recall(q, k=5).items] for q in QUESTIONS]


def test_each_name_chooses_its_strategy_once_when_the_engine_is_built(conversation: Prepared,
                                                                      hashing_trees: Path) -> None:
    assert set(STRATEGIES) == set(FUSIONS)  # every name a setting accepts has its strategy
    built = {name: engine(conversation, fusion=name, ranker=str(hashing_trees)) for name in FUSIONS}
    assert isinstance(built["learned"].fusion, LearnedFusion) and built["learned"].fusion.embedder == "hashing-384"
    assert isinstance(built["scored"].fusion, ScoredFusion) and isinstance(built["rrf"].fusion, ReciprocalRankFusion)
    chosen = built["scored"].fusion
    answers(built["scored"])
    assert built["scored"].fusion is chosen  # recall never chooses again
    built["scored"].settings = replace(built["scored"].settings, ranking=Ranking(fusion="rrf"))
    assert isinstance(built["scored"].fusion, ReciprocalRankFusion)  # new settings choose again, once


def test_the_strategies_rank_a_conversation_differently_where_they_should(conversation: Prepared,
                                                                          hashing_trees: Path) -> None:
    scored = answers(engine(conversation, fusion="scored"))
    learned = answers(engine(conversation, fusion="learned", ranker=str(hashing_trees)))
    untrained = answers(engine(conversation, fusion="learned"))  # the packaged trees: fitted with MiniLM
    rrf = answers(engine(conversation, fusion="rrf"))
    assert untrained == scored  # trees fitted with another embedder never rank: the scored fusion does
    assert all(a != b for a, b in zip(learned, scored))  # turns between people: the trees rank them
    assert all(a != b for a, b in zip(rrf, scored))
    best_rrf = SPEAKER_FACTOR * 2 / (Ranking().rrf_k + 1)  # first in both lists, said by someone named
    assert all(0 < score <= best_rrf * (1 + Ranking().salience_weight) + 1e-9 for items in rrf for _, score in items)


def test_an_unknown_fusion_or_a_removed_setting_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match=r"unknown recall fusion 'bm25': use one of learned, scored, rrf"):
        RecallSettings().with_overrides(fusion="bm25")
    with pytest.raises(ConfigError, match=r"unknown recall setting: episode_weight \(episode_weight: removed"):
        RecallSettings().with_overrides(episode_weight=1.0)
    assert RecallSettings().with_overrides(fusion="rrf", pool=20).ranking.fusion == "rrf"
