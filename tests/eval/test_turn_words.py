"""The LoCoMo candidate-feature benchmark (benchmarks/fitting/turn_words.py): the class phrase of a
list question, the named person's turns as candidates, and one row of features per candidate."""

import json
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.fitting.turn_words import NAMES, Sources, WordVectors, class_phrase, collect, turn_form
from mnemo.eval.locomo import load_conversations, prepare
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import HashingEmbedder
from ontology import load_ontology


def test_the_class_phrase_is_what_a_list_question_asks_for() -> None:
    assert class_phrase("What activities does Melanie partake in?") == "activities"
    assert class_phrase("What LGBTQ+ events has Caroline participated in?") == "LGBTQ+ events"
    assert class_phrase("What kind of art does Caroline make?") == "art"
    assert class_phrase("Would Tim enjoy books by C. S. Lewis?") == ""


def test_turn_form_reads_the_turn_after_its_speaker() -> None:
    image, asks, _, event, praise = turn_form("Mel: Thanks! We went camping? [shares an image: a tent]")
    assert (image, asks, event, praise) == (1.0, 1.0, 1.0, 1.0)
    assert turn_form("Mel: The lake is calm")[:2] == (0.0, 0.0)


def long_conversation() -> dict[str, Any]:
    """Two people, 200 turns over four sessions (more than both searches return), one question
    about Rosa's activities whose evidence shares no word with it."""
    words = "lake bread train violin garden market river paint chess kite".split()
    sessions: dict[str, Any] = {}
    for s in range(1, 5):
        sessions[f"session_{s}_date_time"] = f"9:05 am on {s} March, 2024"
        sessions[f"session_{s}"] = [
            {"speaker": "Rosa" if t % 2 else "Teo", "dia_id": f"D{s}:{t}",
             "text": f"Item {s * 100 + t} mentions {words[t % 10]} and {words[(t * 3 + s) % 10]} today."}
            for t in range(1, 51)]
    sessions["session_4"][10]["text"] = "I am off to go swimming with the kids."
    return {"sample_id": "long", "conversation": {"speaker_a": "Rosa", "speaker_b": "Teo", **sessions},
            "qa": [{"question": "What activities does Rosa partake in?", "answer": "swimming",
                    "evidence": ["D4:11"], "category": 1}]}


def test_added_sources_only_add_candidates_and_every_row_has_every_feature(tmp_path: Path) -> None:
    (tmp_path / "long.json").write_text(json.dumps([long_conversation()]), encoding="utf-8")
    [conversation] = load_conversations(tmp_path / "long.json")
    embedder = HashingEmbedder(384)
    prepared = prepare(conversation, tmp_path / "c", embedder, load_ontology(), RecallSettings())
    first = collect(prepared, embedder, WordVectors(), Sources())
    more = collect(prepared, embedder, WordVectors(), Sources(5, 5, 5))
    assert first.x.shape[1] == more.x.shape[1] == len(NAMES)
    assert len(more.y) >= len(first.y) and more.y.sum() >= first.y.sum()
    added = NAMES.index("from_added")
    assert not first.x[:, added].any() and more.x[:, added].any()
    assert np.array_equal(np.bincount(more.question, minlength=len(more.evidence)) -
                          np.bincount(more.question, weights=more.x[:, added], minlength=len(more.evidence)),
                          np.bincount(first.question, minlength=len(first.evidence)))
