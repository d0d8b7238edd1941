"""Sleep mode's month summaries and community reports written by a real model, next to the extractive ones.

Usage: .venv/bin/python benchmarks/llm_summaries.py --config mnemo.yaml --namespace N
           --url http://127.0.0.1:PORT/v1 --model ID [--mode tools|json|auto] [--topic TEXT ...] [--json OUT]
The namespace must have been ingested. Its stored memory is copied to a temporary folder (the
original is not touched), slept once without a model (the extractive rows) and once more with
the model, through the same `consolidate` a nightly run calls; only the communities and
summaries steps run. For every request the model's raw answer and the validation error, if any,
are recorded; for every month and community the extractive text, what stands after the model's
run, who wrote it, and the sentences the grounding check flagged.
"""

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemo.config import LLMConfig, load_config
from mnemo.sleep.abstractive import Abstraction, SleepWriter
from mnemo.sleep.consolidate import consolidate
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.text import Sentence
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from ontology import load_ontology

STEPS = ("communities", "summaries")


def _rows(root: Path) -> dict[str, dict[str, Any]]:
    sleep = SleepFiles(root)
    months = {i: r for i, r in sleep.read_overlay("summaries").nodes.get("Summary", {}).items() if r["level"] == "month"}
    return {**{i: {"text": r["text"], "sources": r["sources"]} for i, r in months.items()},
            **{i: {"text": r["summary"], "sources": r["sources"], "title": r["title"]}
               for i, r in sleep.read_overlay("communities").nodes.get("Community", {}).items()}}


class TopicsWriter(SleepWriter):
    """Asks the model only for summaries whose topic holds one of `topics` (all, and abstractions
    too, when empty); the others fail as an unanswered request would, so their extractive rows stand."""

    def __init__(self, settings: LLMConfig, topics: list[str]) -> None:
        super().__init__(settings, "")
        self.topics = topics

    def summary(self, topic: str, pool: Sequence[Sentence], names: Collection[str] = ()) -> tuple[str, list[str]] | None:
        if self.topics and not any(t in topic for t in self.topics):
            return None
        return super().summary(topic, pool, names)

    def abstraction(self, entities: dict[str, str], kind: str) -> Abstraction | None:
        return None if self.topics else super().abstraction(entities, kind)


def _recorded(writer: SleepWriter) -> list[dict[str, Any]]:
    """Each request's topic, the model's raw answer and the error that rejected it (filled as it runs)."""
    attempts: list[dict[str, Any]] = []

    def asked(*args: Any, **kwargs: Any) -> None:
        prompt = kwargs["messages"][-1]["content"]
        attempts.append({"topic": prompt.splitlines()[0][:160], "answer": None, "error": None})
        print("asked:", attempts[-1]["topic"], file=sys.stderr, flush=True)

    def answered(response: Any) -> None:
        message = response.choices[0].message
        calls = message.tool_calls or []
        attempts[-1]["answer"] = calls[0].function.arguments if calls else message.content
        print("answer:", attempts[-1]["answer"], file=sys.stderr, flush=True)

    def rejected(error: Exception) -> None:
        attempts[-1]["error"] = " ".join(str(error).split())[:400]
        print("rejected:", attempts[-1]["error"], file=sys.stderr, flush=True)

    writer.client.on("completion:kwargs", asked)
    writer.client.on("completion:response", answered)
    writer.client.on("parse:error", rejected)
    writer.client.on("completion:error", rejected)
    return attempts


def run(config: Path, namespace: str, settings: LLMConfig, work: Path, topics: list[str]) -> dict[str, Any]:
    loaded = load_config(config)
    shutil.copytree(loaded.data_root(namespace) / namespace, work / namespace)
    files = NamespaceFiles(work, namespace)
    now, sleep = datetime.now(UTC), loaded.sleep

    def slept(writer: SleepWriter | None) -> Any:
        graph = GraphStore(files.graph_path, load_ontology(), engine=loaded.graph.engine)
        return consolidate(NamespaceFiles(work, namespace), graph, sleep, now, writer=writer, steps=STEPS)

    slept(None)
    extractive = _rows(files.root)
    writer = TopicsWriter(settings, topics)
    attempts = _recorded(writer)
    report = slept(writer)
    after = _rows(files.root)
    rows = [{"id": i, **({"title": r["title"]} if "title" in r else {}), "extractive": r["text"],
             "after": after.get(i, {}).get("text"), "changed": after.get(i, {}).get("text") != r["text"]}
            for i, r in extractive.items()]
    return {"model": settings.model, "mode": settings.mode, "base_url": settings.base_url,
            "summaries": report.summaries and vars(report.summaries),
            "communities": report.communities and {k: v for k, v in vars(report.communities).items() if k != "cohesion"},
            "stats": vars(writer.stats), "attempts": attempts, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, required=True)
    parser.add_argument("--namespace", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--mode", default="tools", choices=["tools", "json_schema", "json", "auto"])
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--topic", action="append", default=[],
                        help="ask only for summaries whose topic holds this text (repeatable), e.g. 'month 2023-09'")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    settings = LLMConfig(base_url=args.url, model=args.model, mode=args.mode, timeout=args.timeout,
                         max_retries=1, transient_retries=0, retry_wait=0)
    with tempfile.TemporaryDirectory(prefix="mnemo-llm-summaries-") as work:
        result = run(args.config, args.namespace, settings, Path(work), args.topic)
    text = json.dumps(result, indent=1, ensure_ascii=False, default=str)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
