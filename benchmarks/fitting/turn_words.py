"""Candidate features measured for LoCoMo's multi-hop and inference questions (categories 1 and
3), beside the learned ranking's own (`recall.learned.FEATURES`), and more candidates from the
turns of the person a question names. Nothing here is used by recall: this is what was measured.

For a question that names a speaker ("What activities does Melanie partake in?"):
- `speaker_rank`: the candidate's rank among that person's turns by cosine to the question without
  the name (60 / (61 + rank), 0 for another speaker's turn), and `speaker_cosine` that cosine;
- `other_names`: the turn is the other speaker's but names the person ("Thanks, Melanie!");
- `list_question`: the question asks What / Which / Where / Who / How many;
- `class_cosine` / `class_speaker_rank`: the turn's cosine to the question's class phrase alone
  ("activities", "LGBTQ+ events"), and its rank by it among the person's turns;
- five turn-form flags: it shares an image, asks a question, its share of first-person words, an
  event verb ("went", "joined", "bought"), it opens with thanks or praise;
- word-level cosines: every word of the turn's own text is embedded alone, and the turn scores the
  best cosine of its words to the class phrase (`word_class_max`) and to the question without the
  names (`word_query_max`, and the mean of the best two `word_query_top2`); `soft_coverage` is the
  mean over the question's words of each one's best cosine to a word of the turn.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mnemo.documents import normalize_name
from mnemo.eval.locomo import Prepared
from mnemo.recall.learned import _STOP, FEATURES, features_of
from mnemo.recall.rank import rows_around, signals_of
from mnemo.recall.search import HeldChunks, TimeWindow, lexical, semantic
from mnemo.recall.settings import RecallSettings
from mnemo.stores.embedders import Embedder

EXTRAS = ("speaker_rank", "other_names", "list_question", "class_cosine", "class_speaker_rank", "from_added",
          "speaker_cosine", "shares_image", "asks", "first_person", "event_verb", "thanks_start", "word_class_max",
          "word_query_max", "word_query_top2", "soft_coverage")
NAMES = (*FEATURES, *EXTRAS)
_AUX = r"(?:does|do|did|has|have|had|is|are|was|were|can|could|would|will|might)"
_CLASS = re.compile(r"^\s*(?:what|which)\s+(?:(?:kind|kinds|type|types|sort|sorts)\s+of\s+)?"
                    r"((?:[\w+/'-]+\s+){0,2}?[\w+/'-]+)\s+" + _AUX + r"\b", re.IGNORECASE)
_LIST = re.compile(r"^\s*(?:what|which|where|who|how many)\b", re.IGNORECASE)
_FIRST = re.compile(r"\b(i|i'm|i've|i'd|me|my|we|we're|we've|our|us)\b", re.IGNORECASE)
_EVENT = re.compile(r"\b(went|took|got|bought|joined|started|made|signed|tried|finished|visited|painted|read|played|"
                    r"did|had|saw|attended|learned|adopted|won|baked|cooked|wrote|ran|hiked|camped|just)\b", re.IGNORECASE)
_PRAISE = re.compile(r"\W*(thanks|thank you|wow|congrats|that's|aw)", re.IGNORECASE)
_WORD = re.compile(r"[a-z][a-z'-]{2,}")
_POSSESSIVE = re.compile(r"['’]s\b", re.IGNORECASE)
_NOT_PEOPLE = frozenset({"", "user", "human", "assistant", "system", "tool", "model"})


def class_phrase(query: str) -> str:
    """The words between "What/Which (kind of)" and the verb: "activities", "LGBTQ+ events"."""
    found = _CLASS.search(query)
    words = [w for w in found.group(1).split() if w.lower() not in {"are", "is", "some", "the", "of"}] if found else []
    return " ".join(words)


def own_words(text: str) -> list[str]:
    """The content words of a turn's text after its "Speaker: " prefix (image caption included)."""
    return [w for w in _WORD.findall(text.split(": ", 1)[-1].lower()) if w not in _STOP]


def turn_form(text: str) -> tuple[float, ...]:
    """The five turn-form flags of the module's docstring."""
    said, _, image = text.split(": ", 1)[-1].partition("[shares an image:")
    words = max(1, len(said.split()))
    return (float(bool(image)), float("?" in said), len(_FIRST.findall(said)) / words,
            float(bool(_EVENT.search(said))), float(bool(_PRAISE.match(said))))


@dataclass
class WordVectors:
    """Each word's vector, embedded alone (the vocabulary of the conversations, encoded once)."""

    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    def add(self, embedder: Embedder, texts: list[str]) -> None:
        new = sorted({w for t in texts for w in own_words(t)} - set(self.vectors))
        for start in range(0, len(new), 512):
            batch = new[start:start + 512]
            self.vectors |= dict(zip(batch, embedder.encode(batch)))

    def of(self, text: str) -> np.ndarray:
        words = [self.vectors[w] for w in dict.fromkeys(own_words(text)) if w in self.vectors]
        return np.asarray(words, dtype=np.float32) if words else np.zeros((0, 1), dtype=np.float32)

    def best(self, text: str, unit: np.ndarray | None) -> tuple[float, float]:
        """The best cosine of the text's words to `unit`, and the mean of the best two."""
        words = self.of(text)
        if unit is None or not len(words):
            return 0.0, 0.0
        cosines = np.sort(words @ unit)[::-1]
        return float(cosines[0]), float(cosines[:2].mean())

    def soft_coverage(self, text: str, asked: np.ndarray) -> float:
        words = self.of(text)
        return float((asked @ words.T).max(axis=1).mean()) if len(words) and len(asked) else 0.0


def _speakers(held: HeldChunks) -> dict[str, np.ndarray]:
    """Normalized speaker name -> the offsets of the held turns they said."""
    by_name: dict[str, list[int]] = {}
    for n, raw in enumerate(held.metadata):
        name = normalize_name(str(json.loads(raw or "{}").get("speaker") or ""))
        if name not in _NOT_PEOPLE:
            by_name.setdefault(name, []).append(n)
    return {k: np.asarray(v) for k, v in by_name.items()}


def _unit(vector: np.ndarray) -> np.ndarray:
    v = np.asarray(vector, dtype=np.float32)
    return v / (float(np.linalg.norm(v)) or 1.0)


@dataclass(frozen=True)
class Sources:
    """How many of the named person's turns join the vector hits: nearest the question without the
    name, nearest the class phrase, and best by word-level cosine to each (half as many)."""

    by_vector: int = 0
    by_class: int = 0
    by_words: int = 0


@dataclass
class Asked:
    """What one question gives the features: its vectors, the named people and their turns."""

    query: str
    names: list[str]
    own: np.ndarray
    vector: np.ndarray
    unnamed: np.ndarray
    phrase: np.ndarray | None
    words: np.ndarray


def _asked(query: str, speakers: dict[str, np.ndarray], embedder: Embedder, words: WordVectors) -> Asked:
    padded = f" {normalize_name(_POSSESSIVE.sub('', query))} "
    names = [n for n in speakers if f" {n} " in padded]
    parts = {p for n in names for p in n.split()}
    unnamed = " ".join(w for w in padded.split() if w not in parts) or query
    phrase = class_phrase(query)
    vectors = embedder.encode_query([query, unnamed, *([phrase] if phrase else [])])
    asked = [words.vectors[w] for w in own_words("x: " + query) if w not in parts and w in words.vectors]
    own = np.unique(np.concatenate([speakers[n] for n in names])) if names else np.zeros(0, dtype=np.int64)
    return Asked(query, names, own, vectors[0], _unit(vectors[1]), _unit(vectors[2]) if phrase else None,
                 np.asarray(asked, dtype=np.float32).reshape(len(asked), len(vectors[0])))


def _ranks(held: HeldChunks, offsets: np.ndarray, scores: np.ndarray) -> dict[str, int]:
    order = offsets[np.lexsort((offsets, -scores))]
    return {held.ids[n]: r for r, n in enumerate(order)}


def _first(ranks: dict[str, int], taken: set[str], count: int) -> list[str]:
    return [i for i, _ in sorted(ranks.items(), key=lambda t: t[1]) if i not in taken][:count]


def question_rows(held: HeldChunks, table: Any, a: Asked, words: WordVectors, sources: Sources,
                  settings: RecallSettings) -> tuple[list[dict[str, Any]], np.ndarray]:
    """One question's candidates (first-round hits, and the named person's turns `sources` adds)
    with their features in NAMES order."""
    lex = lexical(table, a.query, settings.pool, TimeWindow(), held)
    sem = semantic(table, a.vector, settings.pool, TimeWindow(), held)
    unit = held.vectors / held.norms[:, None]
    texts = held.data["text"].take(a.own).to_pylist() if len(a.own) else []
    speaker_cos = unit[a.own] @ a.unnamed if len(a.own) else np.zeros(0)
    by_speaker = _ranks(held, a.own, speaker_cos)
    class_all = unit @ a.phrase if a.phrase is not None else None
    by_class = _ranks(held, a.own, class_all[a.own]) if class_all is not None and len(a.own) else {}
    taken = {r["id"] for r in lex + sem}
    added = _first(by_speaker, taken, sources.by_vector)
    added += _first(by_class, taken | set(added), sources.by_class)
    if sources.by_words and len(a.own):
        added += _first(_ranks(held, a.own, np.asarray([words.best(t, a.unnamed)[0] for t in texts])),
                        taken | set(added), sources.by_words)
        if a.phrase is not None:
            added += _first(_ranks(held, a.own, np.asarray([words.best(t, a.phrase)[0] for t in texts])),
                            taken | set(added), sources.by_words // 2)
    sem = sem + held.full_rows(added)
    found = signals_of(lex, sem, rows_around(table, lex + sem, 2, held), a.vector, a.query, settings.ranking.rrf_k)
    extra = np.asarray([_extra(row, a, words, by_speaker, by_class, class_all, held, set(added))
                        for row in found.rows]).reshape(len(found.rows), len(EXTRAS))
    cosines = dict(zip((held.ids[n] for n in a.own), speaker_cos.tolist()))
    extra[:, EXTRAS.index("speaker_cosine")] = [cosines.get(r["id"], 0.0) for r in found.rows]
    return found.rows, np.hstack([features_of(found, a.vector, a.query, held), extra])


def _reciprocal(rank: int | None) -> float:
    return 60 / (61 + rank) if rank is not None else 0.0


def _extra(row: dict[str, Any], a: Asked, words: WordVectors, by_speaker: dict[str, int], by_class: dict[str, int],
           class_all: np.ndarray | None, held: HeldChunks, added: set[str]) -> list[float]:
    speaker = normalize_name(str(json.loads(row.get("metadata") or "{}").get("speaker") or ""))
    text = row.get("text") or ""
    padded = f" {normalize_name(text)} "
    offset = held.offset.get(row["id"])
    class_cosine = float(class_all[offset]) if class_all is not None and offset is not None else 0.0
    return [_reciprocal(by_speaker.get(row["id"])),
            float(bool(a.names) and speaker not in a.names and any(f" {n} " in padded for n in a.names)),
            float(bool(_LIST.search(a.query))), class_cosine, _reciprocal(by_class.get(row["id"])),
            float(row["id"] in added), 0.0, *turn_form(text), words.best(text, a.phrase)[0],
            *words.best(text, a.unnamed), words.soft_coverage(text, a.words)]


@dataclass
class Rows:
    """One conversation's candidate rows: features, label, question index; per question its
    evidence count and category."""

    x: np.ndarray
    y: np.ndarray
    question: np.ndarray
    evidence: np.ndarray
    category: np.ndarray


def collect(prepared: Prepared, embedder: Embedder, words: WordVectors, sources: Sources) -> Rows:
    """Every question's candidates and features for one ingested conversation."""
    table = prepared.pipeline.vectors.must_open("chunks")
    held = HeldChunks(table)
    words.add(embedder, held.data["text"].to_pylist())
    speakers, settings = _speakers(held), RecallSettings()
    xs, ys, qs = [], [], []
    for index, question in enumerate(prepared.questions):
        rows, x = question_rows(held, table, _asked(question.text, speakers, embedder, words), words, sources, settings)
        evidence = set(question.evidence)
        xs.append(x)
        ys.append([int(prepared.dia_of.get(r["id"], "") in evidence) for r in rows])
        qs.append(np.full(len(rows), index))
    return Rows(np.concatenate(xs), np.concatenate(ys).astype(np.int8), np.concatenate(qs),
                np.asarray([len(q.evidence) for q in prepared.questions]),
                np.asarray([q.category for q in prepared.questions]))


def held_out(parts: list[Rows], columns: list[int], fit: Callable[..., Any], k: int = 10) -> dict[str, Any]:
    """Recall@k of the candidates ordered by trees fitted on the other conversations (`fit(x, y,
    groups)` returns models with `predict`; their mean is the score), overall and per category."""
    found: list[tuple[float, int]] = []
    for held in range(len(parts)):
        training = [p for n, p in enumerate(parts) if n != held]
        question = np.concatenate([p.question + 100_000 * n for n, p in enumerate(training)])
        starts = np.flatnonzero(np.r_[True, question[1:] != question[:-1]])
        models = fit(np.concatenate([p.x[:, columns] for p in training]), np.concatenate([p.y for p in training]),
                     np.diff(np.r_[starts, len(question)]))
        part = parts[held]
        scores = np.mean([m.predict(part.x[:, columns]) for m in models], axis=0)
        for q in np.flatnonzero(part.evidence):
            rows = np.flatnonzero(part.question == q)
            top = rows[np.argsort(-scores[rows], kind="stable")[:k]]
            found.append((min(1.0, part.y[top].sum() / part.evidence[q]), int(part.category[q])))
    by_category = {str(c): round(float(np.mean([r for r, cat in found if cat == c])), 3)
                   for c in sorted({cat for _, cat in found})}
    return {f"R@{k}": round(float(np.mean([r for r, _ in found])), 3), "by_category": by_category}
