"""LoCoMo evaluation: turn-level evidence recall@k of mnemo's recall against two baselines.

Each conversation is ingested into its own temporary namespace through the real pipeline
(the same functions the ingest job's assets call). Only the conversation itself is written
to the source file: questions, answers and evidence are read by the scorer alone. Every
question of categories 1-4 is then asked through recall (eager mode, randomness off), the
returned chunks are mapped to their `dia_id`s, and recall@k = |retrieved ∩ evidence| /
|evidence| is averaged over the questions that have evidence.
"""

import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mnemo.config import ChunkingConfig, MnemoConfig, NamespaceConfig, SourceConfig
from mnemo.errors import MnemoError
from mnemo.eval.sleep_run import consolidate_for_eval, sleep_steps
from mnemo.pipelines.ingest import IngestPipeline, describe_steps
from mnemo.recall.engine import RecallEngine
from mnemo.recall.hybrid import recall_chunks
from mnemo.recall.results import RecallResult
from mnemo.recall.search import TimeWindow, lexical
from mnemo.recall.settings import Mode, RecallSettings
from mnemo.sleep.store import SleepFiles
from mnemo.stores.embedders import Embedder
from ontology import Ontology

CATEGORIES = (1, 2, 3, 4)
SYSTEMS = ("mnemo", "bm25", "hybrid")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def timed_recall(engine: RecallEngine, query: str, k: int, mode: Mode) -> tuple[RecallResult, float]:
    """A recall and how long it took, in seconds."""
    start = time.perf_counter()
    result = engine.recall(query, k=k, mode=mode)
    return result, time.perf_counter() - start



def evidence_ids(raw: list[Any]) -> list[str]:
    """`['D8:6; D9:17', 'D:11:26']` -> `['D8:6', 'D9:17', 'D11:26']` (malformed ids dropped)."""
    found = [f"D{a}:{b}" for item in raw for a, b in _EVIDENCE.findall(str(item))]
    return list(dict.fromkeys(found))


def recall_at(retrieved: list[str], evidence: list[str], k: int) -> float:
    """Share of the evidence turns found among the first k distinct retrieved turns."""
    top = set(list(dict.fromkeys(retrieved))[:k])
    return len(top & set(evidence)) / len(evidence)


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass
class Prepared:
    """One conversation ingested into its own namespace by the ingest pipeline, ready to be questioned."""

    sample_id: str
    engine: RecallEngine
    pipeline: IngestPipeline
    steps: dict[str, str]  # the ingest steps that ran
    dia_of: dict[str, str]
    questions: list[Question]


@dataclass
class Scores:
    """Per-system lists of per-question recall values, by k and category."""

    ks: tuple[int, ...]
    values: dict[str, dict[int, list[tuple[int, float]]]] = field(default_factory=dict)
    latency: dict[str, list[float]] = field(default_factory=dict)

    def add(self, system: str, category: int, retrieved: list[str], evidence: list[str]) -> None:
        per_k = self.values.setdefault(system, {k: [] for k in self.ks})
        for k in self.ks:
            per_k[k].append((category, recall_at(retrieved, evidence, k)))


def questions_of(conversation: dict[str, Any]) -> list[Question]:
    """The conversation's questions of categories 1-4 that name at least one evidence turn."""
    out = []
    for qa in conversation.get("qa", []):
        evidence = evidence_ids(qa.get("evidence") or [])
        if qa.get("category") in CATEGORIES and evidence and isinstance(qa.get("question"), str):
            out.append(Question(qa["question"], int(qa["category"]), tuple(evidence)))
    return out


def prepare(conversation: dict[str, Any], root: Path, embedder: Embedder, ontology: Ontology,
            settings: RecallSettings, max_words: int = 180) -> Prepared:
    """Ingest one conversation (without its questions) into a fresh namespace under root."""
    sample = str(conversation.get("sample_id") or "conversation")
    source = root / "source"
    source.mkdir(parents=True, exist_ok=True)
    only_dialogue = {"sample_id": sample, "conversation": conversation["conversation"]}
    (source / "conversation.json").write_text(json.dumps([only_dialogue]), encoding="utf-8")
    namespace = "locomo"
    config = MnemoConfig(data_dir=root / "data", chunking=ChunkingConfig(max_words=max_words), namespaces={
        namespace: NamespaceConfig(sources=(SourceConfig(kind="locomo", path=source),))
    })
    pipeline = IngestPipeline.of(config, namespace, ontology, embedder)
    ingested = pipeline.run()
    files = pipeline.files
    if ingested.counts["problems"]:
        raise MnemoError(f"{sample}: {files.read_problems()}")
    dia_of = {c.id: c.metadata.get("dia_id", "") for c in files.read_chunks()}
    engine = RecallEngine(files.root, pipeline.vectors, pipeline.graph, embedder, replace(settings, random_share=0.0),
                          seed=0, session=files.session)
    return Prepared(sample, engine, pipeline, ingested.steps, dia_of, questions_of(conversation))


def _dia(prepared: Prepared, chunk_ids: list[str]) -> list[str]:
    return [d for d in (prepared.dia_of.get(i, "") for i in chunk_ids) if d]


def ask(prepared: Prepared, scores: Scores, systems: tuple[str, ...], latency: bool, label: str = "mnemo",
        mode: Mode = "eager") -> None:
    """Ask every question of the conversation through every system and record the scores
    (mnemo's, recalled in `mode`, under `label`; its latencies under `eager` / `deliberate` with
    the same suffix)."""
    k = max(scores.ks)
    table = prepared.pipeline.vectors.must_open("chunks")
    suffix = label.removeprefix("mnemo")
    for q in prepared.questions:
        evidence = list(q.evidence)
        if "mnemo" in systems:
            result, seconds = timed_recall(prepared.engine, q.text, k, mode)
            scores.latency.setdefault(mode + suffix, []).append(seconds)
            scores.add(label, q.category, _dia(prepared, [i.id for i in result.items]), evidence)
            if latency:
                _, seconds = timed_recall(prepared.engine, q.text, k, "deliberate")
                scores.latency.setdefault("deliberate" + suffix, []).append(seconds)
        if "bm25" in systems:
            rows = lexical(table, q.text, k, TimeWindow())
            scores.add("bm25", q.category, _dia(prepared, [r["id"] for r in rows]), evidence)
        if "hybrid" in systems:
            hits = recall_chunks(prepared.pipeline.vectors, prepared.engine.embedder, q.text, k)
            scores.add("hybrid", q.category, _dia(prepared, [h.chunk_id for h in hits]), evidence)


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1) if ordered else 0.0


def summarize(scores: Scores) -> dict[str, Any]:
    """The report: overall and per-category recall@k per system, and recall latency."""
    systems: dict[str, Any] = {}
    questions = 0
    for system, per_k in scores.values.items():
        first = per_k[scores.ks[0]]
        questions = len(first)
        overall = {f"R@{k}": _mean([v for _, v in per_k[k]]) for k in scores.ks}
        by_category = {
            str(c): {f"R@{k}": _mean([v for cat, v in per_k[k] if cat == c]) for k in scores.ks}
            | {"questions": sum(1 for cat, _ in first if cat == c)}
            for c in CATEGORIES if any(cat == c for cat, _ in first)
        }
        systems[system] = {"overall": overall, "by_category": by_category}
    latency = {
        mode: {
            "p50_ms": _percentile(v, 0.5),
            "p95_ms": _percentile(v, 0.95),
            "mean_ms": round(1000 * statistics.fmean(v), 1),
        }
        for mode, v in scores.latency.items()
        if v
    }
    return {"questions": questions, "systems": systems, "latency": latency}


def load_conversations(path: Path) -> list[dict[str, Any]]:
    """The conversations of a LoCoMo file; a clear error naming the file when it is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MnemoError(f"{path}: cannot read LoCoMo file ({exc})") from None
    conversations = data if isinstance(data, list) else [data]
    if not conversations or not all(
        isinstance(c, dict) and isinstance(c.get("conversation"), dict) for c in conversations
    ):
        raise MnemoError(f"{path}: not a LoCoMo file (expected a list of objects with a 'conversation')")
    return conversations


def evaluate(
    path: Path, embedder: Embedder, ontology: Ontology, *, ks: tuple[int, ...] = (5, 10, 20),
    settings: RecallSettings | None = None, systems: tuple[str, ...] = SYSTEMS, latency: bool = True,
    after_sleep: bool = False, progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the whole evaluation on a LoCoMo file and return the report. With `after_sleep`, each
    conversation is then consolidated by sleep mode and asked again through mnemo
    (`mnemo_after_sleep`); the questions asked before sleep are taken out of the access log first."""
    scores = Scores(tuple(sorted(set(ks))))
    steps: dict[str, dict[str, str]] = {}
    for index, conversation in enumerate(load_conversations(path)):
        with tempfile.TemporaryDirectory(prefix="mnemo-locomo-") as tmp:
            prepared = prepare(conversation, Path(tmp), embedder, ontology, settings or RecallSettings())
            ask(prepared, scores, systems, latency)
            steps["ingest"] = prepared.steps
            if after_sleep and "mnemo" in systems:
                SleepFiles(prepared.pipeline.files.root).access_log.unlink(missing_ok=True)
                steps["sleep"] = sleep_steps(consolidate_for_eval(prepared.pipeline))
                ask(prepared, scores, ("mnemo",), latency, label="mnemo_after_sleep")
        if progress:
            progress(f"{prepared.sample_id}: {len(prepared.questions)} questions ({index + 1} conversations done)")
    return {**summarize(scores), "steps": steps}


def format_table(report: dict[str, Any]) -> str:
    """The report as a plain-text table (one row per system and category)."""
    systems = report["systems"]
    ks = list(next(iter(systems.values()))["overall"]) if systems else []
    w = max([8, *(len(name) for name in systems)])
    lines = [f"LoCoMo turn-level evidence recall — {report['questions']} questions",
             *(describe_steps(ran, stage) for stage, ran in report.get("steps", {}).items()),
             f"{'system':<{w}} {'category':<9} {'n':>4} " + " ".join(f"{k:>6}" for k in ks)]
    for name, figures in systems.items():
        n = sum(c["questions"] for c in figures["by_category"].values())
        lines.append(f"{name:<{w}} {'all':<9} {n:>4} " + " ".join(f"{figures['overall'][k]:>6.3f}" for k in ks))
        for cat, row in figures["by_category"].items():
            lines.append(f"{name:<{w}} {cat:<9} {row['questions']:>4} " + " ".join(f"{row[k]:>6.3f}" for k in ks))
    for mode, row in report.get("latency", {}).items():
        lines.append(f"latency {mode}: p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, mean {row['mean_ms']} ms")
    return "\n".join(lines)
