"""A seeded synthetic Obsidian vault: people, organizations, projects, places, concepts and
daily notes that link to them, with some entities spelled two ways (for dedup).

Usage: .venv/bin/python benchmarks/synthetic_vault.py OUT_DIR [--notes 10000] [--seed 1]
"""

import argparse
import random
from datetime import date, timedelta
from pathlib import Path

FIRST = ["Ana", "Ben", "Chloe", "Dmitri", "Eva", "Farid", "Grace", "Hugo", "Ines", "Jonas", "Kira", "Luis", "Mara", "Nils", "Olga", "Pedro"]
LAST = ["Silva", "Okafor", "Novak", "Tanaka", "Berg", "Costa", "Haddad", "Moreau", "Kowalski", "Lindqvist", "Reyes", "Ivanova"]
WORDS = ["river", "signal", "harbor", "lantern", "orbit", "meadow", "copper", "atlas", "ember", "quartz", "willow", "summit"]
KINDS = {"organization": "Organizations", "project": "Projects", "place": "Places", "concept": "Concepts"}


def _names(rng: random.Random, notes: int) -> dict[str, list[str]]:
    people = sorted({f"{rng.choice(FIRST)} {rng.choice(LAST)} {i}" for i in range(notes // 10)})
    others = {kind: sorted({f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {i}" for i in range(notes // 25)}) for kind in KINDS}
    return {"person": people, **others}


def _entity_note(kind: str, name: str, names: dict[str, list[str]], rng: random.Random) -> str:
    props = {"person": f'works_at: "[[{rng.choice(names["organization"])}]]"\nlives_in: "[[{rng.choice(names["place"])}]]"',
             "project": f'lead: "[[{rng.choice(names["person"])}]]"',
             "organization": f'located_in: "[[{rng.choice(names["place"])}]]"'}.get(kind, "")
    body = f"{name} is often discussed together with [[{rng.choice(names['concept'])}]]. " \
           f"Notes about {name} mention [[{rng.choice(names['person'])}]] and the {rng.choice(WORDS)} work."
    return f"---\ntype: {kind}\n{props}\n---\n{body}\n"


def _daily(day: date, names: dict[str, list[str]], rng: random.Random) -> str:
    picks = [rng.choice(names[k]) for k in rng.sample(list(names), 3)]
    variant = rng.choice(names["person"])
    spelled = variant.replace(" ", "  ") if rng.random() < 0.05 else variant
    return (f"# {day}\n\nMet [[{picks[0]}]] about [[{picks[1]}]]. We talked about {rng.choice(WORDS)} and "
            f"{rng.choice(WORDS)} for an hour.\n\nLater, [[{spelled}]] shared thoughts on [[{picks[2]}]].\n")


def generate(out: Path, notes: int, seed: int = 1) -> int:
    """Write about `notes` notes under `out`; returns how many were written."""
    rng = random.Random(seed)
    names = _names(rng, notes)
    written = 0
    for kind, folder in [("person", "People"), *KINDS.items()]:
        (out / folder).mkdir(parents=True, exist_ok=True)
        for name in names[kind]:
            (out / folder / f"{name}.md").write_text(_entity_note(kind, name, names, rng), encoding="utf-8")
            written += 1
    (out / "Daily").mkdir(parents=True, exist_ok=True)
    start = date(2024, 1, 1)
    for i in range(max(0, notes - written)):
        day = start + timedelta(days=i)
        (out / "Daily" / f"{day}.md").write_text(_daily(day, names, rng), encoding="utf-8")
        written += 1
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--notes", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"wrote {generate(args.out, args.notes, args.seed)} notes to {args.out}")
