"""Scored fusion: each signal moves a candidate the way it should, and nothing else does."""

import json
from pathlib import Path
from typing import Any

import lancedb
import numpy as np

from mnemo.recall.fusion import ScoredFusion
from mnemo.recall.rank import Scored, Weights, neighbour_ids, rows_around, said_by_named, signals_of
from mnemo.stores.vector_table import VectorTable

ONLY_COSINE = Weights(cosine=1.0, bm25=0.0, speaker=0.0, neighbour_cosine=0.0, neighbour_bm25=0.0, session=0.0)


def row(row_id: str, vector: list[float], *, doc: str = "doc_a", speaker: str = "", prev: str = "", nxt: str = "",
        bm25: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row_id, "doc_id": doc, "vector": vector, "prev_id": prev, "next_id": nxt,
           "metadata": json.dumps({"speaker": speaker} if speaker else {})}
    if bm25 is not None:
        out["_score"] = bm25
    return out


QUERY = np.array([1.0, 0.0], dtype=np.float32)


def scored_fusion(lexical: list[dict], semantic: list[dict], neighbours: dict, vector: np.ndarray, query: str,
                  weights: Weights) -> list[Scored]:
    """The scored fusion's ranking of hits whose neighbouring turns are given."""
    return ScoredFusion(weights).ranked(signals_of(lexical, semantic, neighbours, vector, query, weights.rrf_k)).hits


def ranked(lexical: list[dict], semantic: list[dict], weights: Weights, neighbours: dict | None = None,
           query: str = "what did Dana bring") -> list[str]:
    return [s.row["id"] for s in scored_fusion(lexical, semantic, neighbours or {}, QUERY, query, weights)]


def test_cosine_orders_vector_hits_and_reasons_name_the_lists() -> None:
    near, far = row("near", [0.9, 0.1]), row("far", [0.1, 0.9], bm25=3.0)
    hits = scored_fusion([far], [far, near], {}, QUERY, "anything", ONLY_COSINE)
    assert [h.row["id"] for h in hits] == ["near", "far"]
    assert hits[1].reasons == ("lexical", "semantic") and hits[0].reasons == ("semantic",)


def test_bm25_counts_relative_to_the_best_lexical_hit() -> None:
    weights = Weights(0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    a, b, c = row("a", [1, 0], bm25=8.0), row("b", [1, 0], bm25=2.0), row("c", [1, 0])
    hits = {h.row["id"]: h.score for h in scored_fusion([a, b], [c], {}, QUERY, "q", weights)}
    assert hits == {"a": 1.0, "b": 0.25, "c": 0.0}


def test_a_turn_by_a_speaker_the_query_names_gains_the_bonus() -> None:
    weights = Weights(1.0, 0.0, 3.0, 0.0, 0.0, 0.0)
    by_sam, by_dana = row("sam", [0.9, 0.1], speaker="Sam"), row("dana", [0.5, 0.5], speaker="Dana Kim")
    assert ranked([], [by_sam, by_dana], weights, query="What did Dana Kim bring?") == ["dana", "sam"]
    assert ranked([], [by_sam, by_dana], weights, query="What did Danas bring?") == ["sam", "dana"]
    assert said_by_named(by_dana, " what did dana kim bring ") and not said_by_named(row("x", [1, 0]), " x ")


def test_a_turn_next_to_a_strong_turn_gains_through_its_neighbour() -> None:
    weights = Weights(1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    question = row("question", [0.5, 0.5], nxt="answer")
    other = row("other", [0.6, 0.4])
    answer = row("answer", [1.0, 0.0], prev="question")
    assert ranked([], [other, question], weights)[0] == "other"
    assert ranked([], [other, question], weights, neighbours={"answer": answer})[0] == "question"
    assert neighbour_ids([question, answer, other]) == ["answer", "question"]


def test_hits_of_a_document_with_a_strong_hit_gain_together() -> None:
    weights = Weights(0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
    best = row("best", [1, 0], doc="session_1")
    same, alone = row("same", [1, 0], doc="session_1"), row("alone", [1, 0], doc="session_2")
    scores = {h.row["id"]: h.score for h in scored_fusion([best], [best, alone, same], {}, QUERY, "q", weights)}
    assert scores["same"] == scores["best"] > scores["alone"] > 0


def test_turns_two_away_count_only_through_their_own_weight() -> None:
    far_answer = row("far_answer", [1.0, 0.0], prev="middle")
    middle = row("middle", [0.0, 1.0], prev="question", nxt="far_answer")
    question = row("question", [0.5, 0.5], nxt="middle")
    other = row("other", [0.6, 0.4])
    around = {"middle": middle, "far_answer": far_answer}
    without = Weights(1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    assert ranked([], [other, question], without, neighbours=around)[0] == "other"
    with_second = Weights(1.0, 0.0, 0.0, 1.0, 0.0, 0.0, second_neighbour_cosine=1.0)
    assert ranked([], [other, question], with_second, neighbours=around)[0] == "question"


def test_rows_around_walks_prev_and_next_links_without_returning_the_hits(tmp_path: Path) -> None:
    chain = [f"t{i}" for i in range(7)]
    data = [{"id": c, "vector": [float(i), 1.0], "prev_id": chain[i - 1] if i else "",
             "next_id": chain[i + 1] if i < 6 else "", "text": c, "doc_id": "doc_a", "metadata": "{}"}
            for i, c in enumerate(chain)]
    table = VectorTable(lancedb.connect(tmp_path).create_table("chunks", data=data))
    hits = [data[3]]
    assert sorted(rows_around(table, hits, 1)) == ["t2", "t4"]
    around = rows_around(table, hits, 2)
    assert sorted(around) == ["t1", "t2", "t4", "t5"]
    assert set(around["t5"]) == {"id", "vector", "prev_id", "next_id", "doc_id", "metadata"}
    assert sorted(rows_around(table, [data[0], data[1]], 2)) == ["t2", "t3"]


def test_rows_read_from_lancedb_hold_their_vectors_as_arrays_with_the_same_values(tmp_path: Path) -> None:
    """`vector_rows` gives what LanceDB's `to_list` gives, but each vector as a float32 array (what
    scoring needs); a table with a missing vector is read as `to_list` reads it."""
    from mnemo.recall.search import rows_by_id, vector_rows

    rng = np.random.default_rng(3)
    data = [{"id": f"c{i}", "vector": rng.standard_normal(8).astype(np.float32).tolist(), "text": f"chunk {i}",
             "prev_id": f"c{i - 1}" if i else ""} for i in range(5)]
    raw = lancedb.connect(tmp_path).create_table("chunks", data=data)
    table = VectorTable(raw)
    query = raw.search().select(["vector", "id", "text", "prev_id"]).limit(None)
    listed, arrayed = query.to_list(), vector_rows(query.to_arrow())
    assert [list(r) for r in arrayed] == [list(r) for r in listed]  # the same keys, in the same order
    for plain, fast in zip(listed, arrayed):
        assert isinstance(fast["vector"], np.ndarray) and fast["vector"].dtype == np.float32
        assert fast["vector"].tolist() == np.asarray(plain["vector"], dtype=np.float32).tolist()
        assert {k: v for k, v in fast.items() if k != "vector"} == {k: v for k, v in plain.items() if k != "vector"}
    assert sorted(rows_by_id(table, ["c3", "c1", "nope"], ["id", "vector"])) == ["c1", "c3"]
    assert rows_by_id(table, ["c3"], ["id", "vector"])["c3"]["vector"].tolist() == arrayed[3]["vector"].tolist()
    assert vector_rows(query.to_arrow().slice(0, 0)) == []
    import pyarrow as pa

    holed = pa.table({"id": ["a", "b"], "vector": pa.array([[1.0, 2.0], None], type=pa.list_(pa.float32(), 2))})
    assert vector_rows(holed) == holed.to_pylist()  # no array rows to make where one is missing
    ragged = pa.table({"id": ["a", "b"], "vector": pa.array([[1.0, 2.0], [3.0]], type=pa.list_(pa.float32()))})
    assert vector_rows(ragged) == ragged.to_pylist()  # nor from a column of lists of any length


def dated_row(row_id: str, vector: list[float], dated: bool) -> dict:
    out = row(row_id, vector)
    if dated:
        out["metadata"] = json.dumps({"dates": [{"phrase": "yesterday", "from": "2023-05-07", "to": "2023-05-07"}]})
    return out


def test_dated_turns_gain_and_more_so_when_the_query_asks_when() -> None:
    plain, dated = dated_row("plain", [0.9, 0.1], False), dated_row("dated", [0.8, 0.2], True)
    only_when = Weights(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, dated_when=1.0)
    assert ranked([], [plain, dated], only_when, query="When did Dana go to the support group?") == ["dated", "plain"]
    assert ranked([], [plain, dated], only_when, query="Where did Dana go?") == ["plain", "dated"]
    always = Weights(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, dated=1.0)
    hits = scored_fusion([], [plain, dated], {}, QUERY, "Where did Dana go?", always)
    assert [h.row["id"] for h in hits] == ["dated", "plain"] and "dated" in hits[0].reasons
