"""Eager recall with and without note cards on a large vault in another language than English, in
one process from one ingest: the vault is the Spanish vault's own notes plus notes made of its
paragraphs (each made note joins two to four paragraphs of different notes under a name of its
own and links one or two notes), until it has `--notes` notes; the made notes are written to a
temporary folder at run time and never kept.

Usage: .venv/bin/python -m benchmarks.cards_at_scale [--notes 10000] [--rounds 4] [--vault DIR]
           [--qa FILE] [--work DIR] [--json OUT]

One engine recalls with the defaults (the cards on, as they are where the notes are mostly not
English), the other with `card_weight` 0 (no card lookup); they take turns question by question,
so that what else the host runs weighs on both alike. The ingest is timed (wall and CPU) and the
1-minute load is read after it and after each round.
"""

import argparse
import json
import os
import random
import resource
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from benchmarks.multilingual_cards_cost import QA, VAULT, WARM_UP, cpu_ticks, percentile  # noqa: E402
from mnemo.note_names import as_strings  # noqa: E402
from mnemo.sources.markdown import split_frontmatter  # noqa: E402


def _paragraphs(vault: Path) -> tuple[list[str], list[str], list[str]]:
    """The vault's notes' file stems, their first alias (or stem), and every paragraph of their
    bodies that holds more than a few words."""
    stems, names, paragraphs = [], [], []
    for path in sorted(vault.rglob("*.md")):
        note = split_frontmatter(path.read_text(encoding="utf-8", errors="replace"))
        stems.append(path.stem)
        names.append(next(iter(as_strings(note.properties.get("aliases"))), path.stem))
        paragraphs += [p.strip() for p in note.body.split("\n\n") if len(p.split()) >= 6]
    return stems, names, paragraphs


def build_vault(source: Path, out: Path, notes: int, seed: int = 7) -> int:
    """Copy the source vault's notes into out and add made notes until it holds `notes`; returns
    how many were made. A `--work` folder that holds them already is ingested again as it is (an
    unchanged vault costs the ingest almost nothing), so the timing can be repeated."""
    rng = random.Random(seed)
    stems, names, paragraphs = _paragraphs(source)
    for path in sorted(source.rglob("*.md")):
        target = out / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    made = max(0, notes - len(stems))
    folder = out / "made"
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(made):
        name = f"{rng.choice(names)} {number}"
        links = " ".join(f"[[{stem}]]" for stem in rng.sample(stems, rng.randint(1, 2)))
        body = "\n\n".join(rng.sample(paragraphs, rng.randint(2, 4)))
        (folder / f"{1800000000 + number}-nota-{number}.md").write_text(
            f"---\naliases:\n - {name}\n---\n\n{body}\n\nVer {links}\n", encoding="utf-8")
    return made


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run(vault: Path, qa: Path, notes: int, rounds: int, work: Path) -> dict[str, Any]:
    from mnemo.eval.notes import ingest_vault
    from mnemo.recall.engine import RecallEngine
    from mnemo.recall.settings import RecallSettings
    from mnemo.stores.embedders import MiniLMEmbedder
    from ontology import load_ontology

    made = build_vault(vault, work / "vault", notes) if not (work / "vault").exists() else None  # kept: reused
    loads = {"start": os.getloadavg()[0]}
    wall, cpu = time.perf_counter(), _cpu()
    ingested = ingest_vault(work / "vault", "obsidian", work / "root", MiniLMEmbedder(), load_ontology(), RecallSettings())
    wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    loads["after ingest"] = os.getloadavg()[0]
    cards = ingested.engine
    plain_settings = replace(cards.settings, ranking=replace(cards.settings.ranking, card_weight=0.0))
    plain = RecallEngine(cards.root, cards.vectors, cards.graph, cards.embedder, plain_settings, seed=0,
                         session=ingested.pipeline.files.session)
    engines = {"cards": cards, "no cards": plain}
    questions = [json.loads(line)["question"] for line in qa.read_text(encoding="utf-8").splitlines() if line.strip()]
    for engine in engines.values():
        for question in questions[:WARM_UP]:
            engine.recall(question, k=10, mode="eager")
    times: dict[str, list[float]] = {name: [] for name in engines}
    for number in range(rounds):
        busy, total = cpu_ticks()
        for question in questions:
            for name, engine in engines.items():
                start = time.perf_counter()
                engine.recall(question, k=10, mode="eager")
                times[name].append((time.perf_counter() - start) * 1000)
        busy_after, total_after = cpu_ticks()
        loads[f"after round {number + 1}"] = os.getloadavg()[0]
        loads[f"host CPU busy in round {number + 1}"] = round((busy_after - busy) / (total_after - total), 3)
        print(f"round {number + 1}: " + ", ".join(
            f"{n} p50 {percentile(t, 0.5):.1f} p95 {percentile(t, 0.95):.1f}" for n, t in times.items()), flush=True)
    cards.close()
    plain.close()
    documents = len(ingested.pipeline.files.read_documents())
    passages = ingested.pipeline.vectors.count("chunks")
    return {"notes": documents, "made_notes": made, "passages": passages,
            "note_cards": ingested.pipeline.vectors.count("note_cards"),
            "ingest_s": round(wall, 1), "ingest_cpu_s": round(cpu, 1), "ms_a_passage": round(wall / passages * 1000, 1),
            "loads": loads, "recall_ms": times,
            "summary": {n: {"p50_ms": round(percentile(t, 0.5), 1), "p95_ms": round(percentile(t, 0.95), 1),
                            "p99_ms": round(percentile(t, 0.99), 1), "mean_ms": round(sum(t) / len(t), 1)}
                        for n, t in times.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--vault", type=Path, default=VAULT)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--work", type=Path, default=None, help="build and ingest here (default: a temporary folder)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not args.vault.is_dir():
        raise SystemExit(f"{args.vault}: no such vault (the corpora live in ../shared/corpora)")
    with tempfile.TemporaryDirectory(prefix="mnemo-cards-scale-") as tmp:
        result = run(args.vault, args.qa, args.notes, args.rounds, args.work or Path(tmp))
    print(json.dumps({k: v for k, v in result.items() if k != "recall_ms"}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
