"""A copy of a vault with a seeded share of the owner's own links hidden, for link prediction.

The owner's links are the wikilinks between notes of the vault (`[[Target]]`, `[[Target|shown]]`,
`[[Target#heading]]`; embeds `![[...]]` and Logseq tags `#[[...]]` are left alone). Links are
hidden by pair of notes: a pair is chosen with its seeded share, and every link between the two,
either way, becomes its plain words (`[[Target|shown]]` -> `shown`, `[[Target]]` -> `Target`), so
the text still reads as the owner wrote it and neither note links the other any more.
"""

import random
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

WIKILINK = re.compile(r"(?<![!#])\[\[([^\[\]|]+?)(?:\|([^\[\]]*))?\]\]")

Pair = tuple[str, str]  # two note paths, relative to the vault, in sorted order


@dataclass(frozen=True)
class HiddenLinks:
    """The copied vault and the pairs of notes whose links were hidden in it."""

    vault: Path
    pairs: frozenset[Pair]
    linked_pairs: int  # pairs of notes linked in the original vault

    def partners(self) -> dict[str, set[str]]:
        """note path -> the notes it was linked with by a hidden link."""
        found: dict[str, set[str]] = defaultdict(set)
        for a, b in self.pairs:
            found[a].add(b)
            found[b].add(a)
        return found


def page_name(rel: str, kind: str) -> str:
    """The name a link uses for a note: its file name, or for a Logseq page its namespaced name."""
    stem = Path(rel).stem
    if kind == "logseq":
        return stem.replace("___", "/").replace("%2F", "/").lower()
    return stem.lower()


def link_target(target: str, kind: str) -> str:
    """`Folder/Note#Heading` -> `note` (Obsidian resolves by name); Logseq keeps the namespace."""
    name = target.split("#", 1)[0].strip().removesuffix(".md").lower()
    return name if kind == "logseq" else name.rsplit("/", 1)[-1]


def shown_words(match: re.Match[str]) -> str:
    """What a hidden link leaves in the text: its alias, or its target's words."""
    if match.group(2) is not None:
        return match.group(2)
    return match.group(1).split("#", 1)[0].strip() or match.group(1)


def _notes(vault: Path) -> list[str]:
    return sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(vault).parts))


def _read(file: Path) -> str | None:
    try:
        return file.read_bytes().decode("utf-8")  # line endings as they are
    except (OSError, UnicodeDecodeError):
        return None


def link_pairs(vault: Path, kind: str) -> set[Pair]:
    """Every pair of distinct notes that one of them links."""
    notes = _notes(vault)
    by_name = {page_name(rel, kind): rel for rel in notes}
    pairs: set[Pair] = set()
    for rel in notes:
        text = _read(vault / rel)
        for match in WIKILINK.finditer(text or ""):
            other = by_name.get(link_target(match.group(1), kind))
            if other is not None and other != rel:
                pairs.add((min(rel, other), max(rel, other)))
    return pairs


def hide_links(vault: Path, kind: str, target: Path, share: float = 0.2, seed: int = 0) -> HiddenLinks:
    """Copy `vault` to `target` and hide a seeded `share` of its linked pairs there."""
    shutil.copytree(vault, target, ignore=shutil.ignore_patterns(".git", ".obsidian", ".trash"))
    pairs = sorted(link_pairs(target, kind))
    hidden = frozenset(random.Random(seed).sample(pairs, round(share * len(pairs))))
    by_name = {page_name(rel, kind): rel for rel in _notes(target)}
    ends: dict[str, set[str]] = defaultdict(set)
    for a, b in hidden:
        ends[a].add(b)
        ends[b].add(a)
    for rel, others in ends.items():
        text = _read(target / rel)
        if text is None:
            continue

        def unlink(match: re.Match[str], rel: str = rel, others: set[str] = others) -> str:
            return shown_words(match) if by_name.get(link_target(match.group(1), kind)) in others else match.group()

        (target / rel).write_bytes(WIKILINK.sub(unlink, text).encode("utf-8"))
    return HiddenLinks(target, hidden, len(pairs))
