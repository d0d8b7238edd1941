"""A deterministic synthetic vault: N notes that look like years of a person's Obsidian use.

The same (size, seed) always gives the same bytes. A vault holds people, organizations,
places, projects and concepts (typed frontmatter, aliases, nested tags, wikilink
properties), daily notes over the years, free notes, a few long notes, and chat exports
(JSONL, one conversation per file) over the same years. Links follow a power law: a few
notes are linked from everywhere, most from a handful of places.

Usage: .venv/bin/python -m benchmarks.synth OUT_DIR --notes 1000 [--seed 7]
"""

import argparse
import datetime as dt
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

FIRST = ("Alice Bruno Carla Diego Elena Farid Greta Hugo Ines Jonas Kira Luca Maya Nadia Omar Paula Quinn Rosa Sven "
         "Tara Umar Vera Wen Xavi Yara Zoe Amir Bea Caio Dana Emil Fern Gil Hana Ivo Jana Kai Lena Milo Nora").split()
LAST = ("Chen Martins Kim Rivera Okafor Silva Novak Haddad Costa Jensen Ito Moreau Rossi Weber Patel Nakamura Oliveira "
        "Schmidt Tanaka Dubois Fischer Garcia Lopez Mendes Park Quist Santos Torres Vidal Walsh Young Zhou").split()
ORG_WORDS = "Acme Northwind Tidepool Lumen Keystone Harbor Quill Ember Atlas Juniper Vector Orchard".split()
ORG_SUFFIX = ("Robotics", "Labs", "Studio", "Collective", "Systems", "Foundation", "Works")
PLACE_ROOTS = "Lis Por Bra Val Mon Ber Ams Cor Sev Tur Zag Kra Bil Nan Gra Lyo".split()
PLACE_ENDS = ("bon", "to", "ga", "encia", "treal", "lin", "dam", "doba", "ille", "in", "reb", "kow", "bao", "tes", "z", "n")
PROJECT_ADJ = "Blue Quiet Swift Bright Iron Paper Silver Hidden Little Northern Open Second".split()
PROJECT_NOUN = "Heron Lantern Compass Harvest Bridge Signal Garden Engine Atlas Kestrel Harbor Meadow".split()
CONCEPTS = ("Deep work", "Spaced repetition", "Behavior trees", "Zettelkasten", "Second brain", "Stoicism",
            "Systems thinking", "Graph databases", "Active recall", "Time blocking", "Kanban", "First principles")
WORDS = ("the a we they it this that team plan idea week meeting notes draft review design code test release bug fix "
         "sprint goal budget client user feedback call lunch coffee walk book chapter talk slide demo launch question "
         "answer problem risk option choice decision next later today tomorrow again still almost finally quickly "
         "slowly carefully worked wrote read discussed agreed moved shipped planned tried learned noticed asked "
         "should could would might will must new old small large first last good hard simple clear late early "
         "about with from into over after before during because while since until and but or so then also "
         "garden trip train city river market weather rain sun evening morning night weekend holiday family friend").split()
TAG_TREE = ("work/eng", "work/eng/backend", "work/meetings", "life/family", "life/health", "reading/books",
            "reading/papers", "ideas", "travel/2019", "travel/2023", "learning/lang", "home/garden")
KINDS = {"person": 0.14, "organization": 0.03, "place": 0.04, "project": 0.07, "concept": 0.02, "daily": 0.45}
START_DAY = dt.date(2016, 1, 4)


@dataclass
class Entity:
    kind: str
    name: str
    folder: str
    aliases: list[str] = field(default_factory=list)


@dataclass
class Vault:
    """What the generator wrote: counts, the note paths and the popular entities."""

    root: Path
    notes: int
    chats: int
    messages: int
    entities: list[Entity]
    paths: list[str]


def _unique(rng: random.Random, make: Callable[[], str], taken: set[str]) -> str:
    for attempt in range(1000):
        name = make() if attempt < 20 else f"{make()} {attempt}"
        if name not in taken:
            taken.add(name)
            return name
    raise RuntimeError("name space exhausted")


def _entities(rng: random.Random, notes: int) -> list[Entity]:
    taken: set[str] = set()
    makers = {
        "person": ("People", lambda: f"{rng.choice(FIRST)} {rng.choice(LAST)}"),
        "organization": ("Organizations", lambda: f"{rng.choice(ORG_WORDS)} {rng.choice(ORG_SUFFIX)}"),
        "place": ("Places", lambda: rng.choice(PLACE_ROOTS) + rng.choice(PLACE_ENDS)),
        "project": ("Projects", lambda: f"Project {rng.choice(PROJECT_ADJ)} {rng.choice(PROJECT_NOUN)}"),
        "concept": ("Concepts", lambda: rng.choice(CONCEPTS)),
    }
    out = []
    for kind, (folder, make) in makers.items():
        for _ in range(max(2, int(notes * KINDS[kind]))):
            name = _unique(rng, make, taken)
            aliases = []
            if kind == "person" and rng.random() < 0.4:
                aliases.append(name.split()[0][:3] + name.split()[-1][0])
            if kind == "project":
                aliases.append(name.removeprefix("Project "))
            out.append(Entity(kind, name, folder, aliases))
    return out


class Writer:
    """Text and links for one vault, all drawn from one seeded generator."""

    def __init__(self, rng: random.Random, entities: list[Entity]) -> None:
        self.rng = rng
        self.entities = entities
        # power law: the i-th entity is chosen with weight 1 / (i + 1)^1.1
        self.weights = [1 / (i + 1) ** 1.1 for i in range(len(entities))]
        self.by_kind: dict[str, list[Entity]] = {}
        for entity in entities:
            self.by_kind.setdefault(entity.kind, []).append(entity)

    def pick(self, kind: str | None = None) -> Entity:
        if kind is None:
            return self.rng.choices(self.entities, self.weights)[0]
        pool = self.by_kind[kind]
        return pool[min(int(self.rng.paretovariate(1.2)) - 1, len(pool) - 1)]

    def sentence(self) -> str:
        words = self.rng.choices(WORDS, k=self.rng.randint(6, 18))
        roll = self.rng.random()
        if roll < 0.35:
            words.insert(self.rng.randrange(len(words)), f"[[{self.pick().name}]]")
        elif roll < 0.55:
            entity = self.pick()
            words.insert(self.rng.randrange(len(words)), self.rng.choice([entity.name, *entity.aliases]))
        text = " ".join(words)
        return text[0].upper() + text[1:] + self.rng.choice(".?.!.")

    def paragraph(self, sentences: int) -> str:
        return " ".join(self.sentence() for _ in range(sentences))

    def body(self, sections: int, sentences: tuple[int, int]) -> str:
        parts = []
        for i in range(sections):
            if i:
                parts.append(f"## {self.rng.choice(WORDS).title()} {self.rng.choice(WORDS)}")
            if self.rng.random() < 0.3:
                parts.append("\n".join(f"- {self.sentence()}" for _ in range(self.rng.randint(2, 5))))
            else:
                parts.append(self.paragraph(self.rng.randint(*sentences)))
        return "\n\n".join(parts)

    def tags(self) -> list[str]:
        return self.rng.sample(TAG_TREE, self.rng.randint(0, 3))


def _frontmatter(values: Mapping[str, object]) -> str:
    lines = ["---"]
    for key, value in values.items():
        lines.append(f"{key}: {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines + ["---", ""])


def _entity_note(w: Writer, entity: Entity, created: dt.date) -> str:
    meta: dict[str, object] = {"type": entity.kind, "created": created.isoformat()}
    if entity.aliases:
        meta["aliases"] = entity.aliases
    meta["tags"] = w.tags()
    if entity.kind == "person":
        meta["works_at"] = f"[[{w.pick('organization').name}]]"
        meta["lives_in"] = f"[[{w.pick('place').name}]]"
        meta["knows"] = [f"[[{w.pick('person').name}]]" for _ in range(w.rng.randint(0, 3))]
        meta["birthday"] = f"19{w.rng.randint(60, 99)}-{w.rng.randint(1, 12):02d}-{w.rng.randint(1, 28):02d}"
    elif entity.kind == "project":
        meta["lead"] = f"[[{w.pick('person').name}]]"
        meta["members"] = [f"[[{w.pick('person').name}]]" for _ in range(w.rng.randint(1, 4))]
        meta["status"] = w.rng.choice(["active", "paused", "done"])
    elif entity.kind in ("organization", "place"):
        meta["located_in"] = f"[[{w.pick('place').name}]]"
    return _frontmatter(meta) + f"# {entity.name}\n\n" + w.body(w.rng.randint(1, 3), (2, 5)) + "\n"


def _daily_note(w: Writer, day: dt.date) -> str:
    meta = {"tags": ["daily/" + str(day.year)]}
    log = "\n".join(f"- {w.sentence()}" for _ in range(w.rng.randint(2, 7)))
    extra = "\n\n## Thoughts\n\n" + w.paragraph(w.rng.randint(2, 6)) if w.rng.random() < 0.4 else ""
    return _frontmatter(meta) + f"## Log\n\n{log}{extra}\n"


def _free_note(w: Writer, long: bool) -> str:
    meta = {"tags": w.tags(), "created": (START_DAY + dt.timedelta(days=w.rng.randint(0, 3600))).isoformat()}
    if w.rng.random() < 0.3:
        meta["project"] = f"[[{w.pick('project').name}]]"
    sections = w.rng.randint(12, 30) if long else w.rng.randint(1, 4)
    return _frontmatter(meta) + w.body(sections, (3, 8)) + "\n"


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _chats(w: Writer, out: Path, conversations: int, days: int) -> int:
    messages = 0
    for i in range(conversations):
        start = dt.datetime.combine(START_DAY + dt.timedelta(days=w.rng.randint(0, days)), dt.time(9)) + dt.timedelta(minutes=w.rng.randint(0, 720))
        lines = []
        for turn in range(w.rng.randint(4, 16)):
            stamp = (start + dt.timedelta(minutes=2 * turn)).isoformat()
            role = "user" if turn % 2 == 0 else "assistant"
            lines.append(json.dumps({"conversation": f"chat-{i:05d}", "role": role, "timestamp": stamp, "content": w.paragraph(w.rng.randint(1, 4))}))
            messages += 1
        _write(out, f"chat-{i:05d}.jsonl", "\n".join(lines) + "\n")
    return messages


def generate(out: Path, notes: int, seed: int = 7, chats: int | None = None) -> Vault:
    """Write a vault of `notes` notes under out/vault and chat exports under out/chats."""
    rng = random.Random(seed)
    entities = _entities(rng, notes)
    w = Writer(rng, entities)
    vault = out / "vault"
    paths: list[str] = []
    for entity in entities[:notes]:
        rel = f"{entity.folder}/{entity.name}.md"
        _write(vault, rel, _entity_note(w, entity, START_DAY + dt.timedelta(days=rng.randint(0, 3000))))
        paths.append(rel)
    remaining = max(0, notes - len(paths))
    daily = int(remaining * KINDS["daily"] / (KINDS["daily"] + 0.25))
    day = START_DAY
    for _ in range(daily):
        day += dt.timedelta(days=rng.choice((1, 1, 1, 2, 3)))
        rel = f"Daily/{day.year}/{day.isoformat()}.md"
        _write(vault, rel, _daily_note(w, day))
        paths.append(rel)
    for i in range(remaining - daily):
        rel = f"Notes/{rng.choice(WORDS).title()} {rng.choice(WORDS)} {i}.md"
        _write(vault, rel, _free_note(w, long=rng.random() < 0.03))
        paths.append(rel)
    conversations = chats if chats is not None else max(1, notes // 20)
    messages = _chats(w, out / "chats", conversations, (day - START_DAY).days or 1)
    return Vault(vault, len(paths), conversations, messages, entities, paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--notes", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    vault = generate(args.out, args.notes, args.seed)
    print(f"{vault.notes} notes, {vault.chats} chats ({vault.messages} messages) in {args.out}")


if __name__ == "__main__":
    main()
