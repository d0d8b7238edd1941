"""What the note cards cost, tree against tree, in one run: each tree (a checkout of mnemo) ingests
the Spanish vault once in a process of its own, then eager recall answers the multilingual
questions in turns (question 1 by tree A, B, C, question 2 by A, B, C, ...), so that what else
the host runs weighs on every tree alike.

Usage: .venv/bin/python -m benchmarks.multilingual_cards_cost --tree main=/work/main
           --tree before=/tmp/before [--tree ...] [--rounds 4] [--work DIR] [--json OUT]

Each tree's process runs with that tree first on PYTHONPATH and the same interpreter; it times
its first ingest (wall and CPU, its own and its children's) and every recall (from the call to
the answer, inside the process); the 1-minute load is read between the ingests and after each
round, with the share of the host's CPU time busy during the round (this run's trees included). Every tree's notes per question are kept, to tell whether two trees rank alike.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent
QA = REPO / "tests" / "data" / "notes_qa" / "multilingual.jsonl"
VAULT = REPO.parent / "shared" / "corpora" / "obsidian-antoniolandin-es"
WARM_UP = 5  # questions each tree answers before the timed ones


def serve(vault: Path, work: Path) -> None:
    """A tree's process: ingest once, then answer the questions written to stdin, one JSON line each."""
    answers: IO[str] = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # whatever else is printed goes to stderr
    import mnemo
    from mnemo.eval.notes import distinct_notes, ingest_vault
    from mnemo.recall.settings import RecallSettings
    from mnemo.stores.embedders import MiniLMEmbedder
    from ontology import load_ontology

    wall, cpu = time.perf_counter(), _cpu()
    ingested = ingest_vault(vault, "obsidian", work, MiniLMEmbedder(), load_ontology(), RecallSettings())
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    passages = ingested.pipeline.vectors.count("chunks")
    _send(answers, {"ingest_s": wall, "ingest_cpu_s": cpu, "passages": passages, "mnemo": mnemo.__file__})
    for line in sys.stdin:
        question = json.loads(line)
        start = time.perf_counter()
        result = ingested.engine.recall(question, k=10, mode="eager")
        took = time.perf_counter() - start
        _send(answers, {"ms": took * 1000, "notes": distinct_notes(result)})


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _send(out: IO[str], message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


class Tree:
    """One tree's process, started and ingested."""

    def __init__(self, name: str, path: Path, vault: Path, work: Path) -> None:
        self.name, self.path = name, path
        work.parent.mkdir(parents=True, exist_ok=True)
        env = os.environ | {"PYTHONPATH": str(path), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", "--vault", str(vault), "--work", str(work)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=work.parent)
        self.ingest = self._read()

    def ask(self, question: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(question) + "\n")
        self.process.stdin.flush()
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"{self.name}: the tree's process ended (exit {self.process.wait()})")
        return dict(json.loads(line))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def cpu_ticks() -> tuple[int, int]:
    """The host's busy and total CPU ticks so far (/proc/stat)."""
    ticks = [int(t) for t in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(ticks) - ticks[3] - ticks[4], sum(ticks)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(trees: dict[str, Path], vault: Path, qa: Path, rounds: int, work: Path) -> dict[str, Any]:
    questions = [json.loads(line) for line in qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    started, loads = {}, {"start": os.getloadavg()[0]}
    for name, path in trees.items():  # one ingest at a time
        started[name] = Tree(name, path, vault, work / name / "root")
        loads[f"after ingest {name}"] = os.getloadavg()[0]
        print(f"{name}: ingest {started[name].ingest}", flush=True)
    for tree in started.values():
        for question in questions[:WARM_UP]:
            tree.ask(question["question"])
    times: dict[str, list[float]] = {name: [] for name in trees}
    notes: dict[str, list[list[list[str]]]] = {name: [] for name in trees}
    for number in range(rounds):
        busy, total = cpu_ticks()
        for name in trees:
            notes[name].append([])
        for question in questions:
            for name, tree in started.items():
                answer = tree.ask(question["question"])
                times[name].append(answer["ms"])
                notes[name][number].append(answer["notes"])
        loads[f"after round {number + 1}"] = os.getloadavg()[0]
        busy_after, total_after = cpu_ticks()
        loads[f"host CPU busy in round {number + 1}"] = round((busy_after - busy) / (total_after - total), 3)
        print(f"round {number + 1}: " + ", ".join(
            f"{n} p50 {percentile(t, 0.5):.1f} p95 {percentile(t, 0.95):.1f}" for n, t in times.items()), flush=True)
    for tree in started.values():
        tree.close()
    return {"trees": {n: str(p) for n, p in trees.items()}, "questions": [q.get("id") for q in questions],
            "gold": [q["gold"] for q in questions], "rounds": rounds, "loads": loads,
            "ingest": {n: t.ingest for n, t in started.items()}, "recall_ms": times, "notes": notes}


def rank_of(notes: list[str], gold: list[str]) -> int:
    return next((n for n, path in enumerate(notes, 1) if path in gold), 0)


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """Per tree: recall p50/p95, first ingest per passage and its ratio to the first tree's, and
    hit@5/MRR of each round; which trees returned the very same notes as the first card tree."""
    first = next(iter(result["ingest"]))
    per_passage = {n: i["ingest_s"] / i["passages"] for n, i in result["ingest"].items()}
    out: dict[str, Any] = {}
    for name, times in result["recall_ms"].items():
        quality = []
        for answers in result["notes"][name]:
            ranks = [rank_of(notes, gold) for notes, gold in zip(answers, result["gold"])]
            quality.append({"hit@5": sum(1 for r in ranks if 0 < r <= 5) / len(ranks),
                            "MRR": round(sum(1 / r for r in ranks if r) / len(ranks), 4)})
        out[name] = {"p50_ms": round(percentile(times, 0.5), 1), "p95_ms": round(percentile(times, 0.95), 1),
                     "mean_ms": round(sum(times) / len(times), 1),
                     "ingest_ms_per_passage": round(per_passage[name] * 1000, 1),
                     "ingest_ratio": round(per_passage[name] / per_passage[first], 3), "quality": quality}
    names = list(result["notes"])
    out["same_notes"] = {f"{a} = {b}": result["notes"][a] == result["notes"][b]
                         for i, a in enumerate(names) for b in names[i + 1:]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", default=[], help="NAME=PATH, in the order they take turns")
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--work", type=Path, default=None, help="keep the trees' namespaces here")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.vault, args.work)
    trees = {name: Path(path) for name, path in (t.split("=", 1) for t in args.tree)}
    with tempfile.TemporaryDirectory(prefix="mnemo-cards-cost-") as tmp:
        result = run(trees, args.vault, args.qa, args.rounds, args.work or Path(tmp))
    result["summary"] = summary(result)
    print(json.dumps(result["summary"], indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
