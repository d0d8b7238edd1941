"""Extractive summarization helpers: markup-free sentences, weighted toward the ones that carry
names, numbers, decisions and outcomes, then selected by relevance and deduplicated by MMR."""

import re
from dataclasses import dataclass

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+")
_DROP_BLOCKS = re.compile(  # code, queries, drawers: nothing a reader of a summary wants
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|#\+BEGIN_(SRC|QUERY|EXAMPLE|EXPORT)\b.*?(?:#\+END_\1\b|\Z)"
    r"|^\s*:(?:PROPERTIES|LOGBOOK):.*?^\s*:END:", re.DOTALL | re.IGNORECASE | re.MULTILINE)
_DROP_LINES = re.compile(
    r"^\s*(?:[-*+]\s+)?[\w\-.]+::.*$"  # Logseq properties (key:: value)
    r"|^\s*#\+\w+:?.*$"  # Org keywords and the markers of blocks kept (#+BEGIN_NOTE)
    r"|^.*\|.*\|.*$",  # table rows
    re.MULTILINE)
_INLINE = (
    (re.compile(r"!\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?|!\[\[[^\]]*\]\]"), ""),  # images and embeds, with {:height …}
    (re.compile(r"\{\{\s*cloze\s+([^}]*?)\s*(?:\\\\[^}]*)?\}\}"), r"\1"),  # a cloze keeps its answer, not its cue
    (re.compile(r"\{\{[^}]*\}\}|\(\([0-9a-f\-]{8,}\)\)"), ""),  # macros, block references
    (re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)"), r"\1"),  # [label](url) -> label
    (re.compile(r"\[\[[^\]]*\]\[([^\]]*)\]\]"), r"\1"),  # Org [[url][label]] -> label
    (re.compile(r"\[\[([^\]|]+)\|([^\]]+)\]\]"), r"\2"),  # [[page|label]] -> label
    (re.compile(r"\[\[([^\]]+)\]\]"), r"\1"),  # [[page]] -> page
    (re.compile(r"<?https?://\S+|<[^>\s]+>"), ""),  # bare URLs, HTML tags
    (re.compile(r"`([\w.\-/]{1,40})`"), r"\1"),  # short code that reads as a word (`.gitignore`) stays
    (re.compile(r"`[^`]*`"), ""),  # other inline code goes
    (re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*\[[ xX]\]\s*", re.MULTILINE), ""),  # task boxes
    (
        re.compile(r"^\s*(?:[-*+]\s+)?(?:TODO|DOING|DONE|LATER|NOW|WAITING|WAIT|CANCELED|CANCELLED)\s+", re.MULTILINE),
        "",
    ),
    (
        re.compile(r"^\s*(?:human|assistant|user|system|ai)\s*:\s*", re.MULTILINE | re.IGNORECASE),
        "",
    ),  # chat role prefixes
    (
        re.compile(r"^\s*(?:\*+|#+|>+|[-+]|\d+[.)])\s+", re.MULTILINE),
        "",
    ),  # headline stars, headings, quotes, list markers
    (re.compile(r"(?<!\w)#(?=\w)"), ""),  # #tag -> tag
    (re.compile(r"[*_~^=]{1,3}(?=\S)|(?<=\S)[*_~^=]{1,3}"), ""),  # emphasis
)
_CAPITALIZED = re.compile(r"(?<=\s)[A-Z][a-z]+(?:[A-Z][a-z]+)*\b")
_NUMBER = re.compile(r"\b\d+(?:[.,:]\d+)*\b")
_OUTCOME = re.compile(
    r"\b(?:decided|decide|chose|agreed|will|plan(?:ned)?|finished|fixed|resolved|learn(?:ed|t)|realized|bought|moved|"
    r"started|switched|because|turns? out|turned out|succeeded|failed|won|lost|released|added|graduated|promised|"
    r"booked|signed|launched|completed|met|visited|upgraded|installed|migrated)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    text: str
    chunk_id: str
    relevance: float


def clean(text: str) -> str:
    """Prose without markup: no code, queries, drawers, properties, tables, images, macros, block
    references, URLs, task boxes or markers, chat role prefixes, heading or list markers, emphasis;
    links keep their labels."""
    text = _DROP_LINES.sub("", _DROP_BLOCKS.sub("", text))
    for pattern, replacement in _INLINE:
        text = pattern.sub(replacement, text)
    return text.strip()


def _symbolic(word: str) -> bool:
    """A token that is mostly punctuation (a regex, a path of symbols), not a word."""
    return len(word) >= 4 and sum(not c.isalnum() for c in word) / len(word) > 0.4


def informative(text: str) -> float:
    """How much a sentence tells (1 for plain prose): names and numbers add, and so does a
    decision or an outcome; a question tells less."""
    weight = 1.0 + 0.3 * min(3, len(_CAPITALIZED.findall(text))) + 0.3 * min(2, len(_NUMBER.findall(text)))
    if _OUTCOME.search(text):
        weight += 0.5
    return weight * (0.7 if text.rstrip().endswith("?") else 1.0)


def sentences(text: str, chunk_id: str, relevance: float = 1.0) -> list[Sentence]:
    """The readable sentences of a passage (at least four words each), each weighted by
    `relevance` times how informative it is."""
    found = []
    for part in _SENTENCE.split(clean(text)):
        part = " ".join(w for w in part.split() if not _symbolic(w))
        alpha = sum(c.isalpha() for c in part)
        if len(part.split()) >= 4 and alpha >= 0.6 * len(part.replace(" ", "")):
            found.append(Sentence(part[:400], chunk_id, relevance * informative(part)))
    return found


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def mmr(candidates: list[Sentence], k: int, diversity: float = 0.5) -> list[Sentence]:
    """Pick k sentences by maximal marginal relevance (word overlap as the similarity)."""
    pool = sorted(candidates, key=lambda s: (-s.relevance, s.chunk_id, s.text))
    chosen: list[Sentence] = []
    bags = [words(s.text) for s in pool]
    overlap = [0.0] * len(pool)  # each candidate's largest overlap with a chosen sentence, kept as they are chosen
    left = list(range(len(pool)))
    while left and len(chosen) < k:
        best = max(left, key=lambda i: (1 - diversity) * pool[i].relevance - diversity * overlap[i])
        left.remove(best)
        if chosen and overlap[best] > 0.8:
            continue
        chosen.append(pool[best])
        bag = bags[best]
        for i in left:
            overlap[i] = max(overlap[i], len(bags[i] & bag) / max(1, len(bags[i] | bag)))
    return chosen


def summarize(candidates: list[Sentence], k: int = 3) -> tuple[str, list[str]]:
    """An extractive summary and the chunk ids it cites."""
    picked = mmr(candidates, k)
    return " ".join(s.text for s in picked), sorted({s.chunk_id for s in picked})
