"""Extractive summarization helpers: markup-free sentences, weighted toward the ones that carry
names, numbers, decisions and outcomes, then selected by relevance and deduplicated by MMR."""

import re
from dataclasses import dataclass

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
    if len(word) < 4 or word.isalnum():
        return False
    return sum(not c.isalnum() for c in word) / len(word) > 0.4


def informative(text: str) -> float:
    """How much a sentence tells (1 for plain prose): names and numbers add, and so does a
    decision or an outcome; a question tells less."""
    weight = 1.0 + 0.3 * min(3, len(_CAPITALIZED.findall(text))) + 0.3 * min(2, len(_NUMBER.findall(text)))
    if _OUTCOME.search(text):
        weight += 0.5
    return weight * (0.7 if text.rstrip().endswith("?") else 1.0)


_MARKER = r"^\s*(?:[-*+]|\d+[.)])\s+"  # a list item's bullet or number
_HEADING = re.compile(r"^\s*(?:[-*+]\s+)?#{1,6}(?:\s|$)|^\s*(?:[-*+]\s+)?heading::", re.IGNORECASE)
_TASK = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:\[[ xX/>-]\]|(?:TODO|DOING|DONE|LATER|NOW|WAITING|WAIT|CANCELED|CANCELLED)\b)")
_BARE_LINKS = re.compile(  # nothing but links, embeds and URLs (and separators between them)
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:!?\[\[[^\]]*\]\]|!?\[[^\]]*\]\([^)]*\)|<?https?://\S+|[\s,;|·•-])+$")
_STARTS_UNIT = re.compile(_MARKER + r"|^\s*(?:>|\||#)|^\s*(?:human|assistant|user|system|ai)\s*:\s", re.IGNORECASE)
_SPLIT = re.compile(r"(?<=[.!?…][\"')\]])\s+|(?<=[.!?…])\s+")
_ENDS_WHOLE = re.compile(r"[.!?…][\"')\]]*$")
_LEADING_MARKER = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
_ENDS_OPEN = re.compile(r"[:,;(/&\-–—]$")  # a lead-in, or a thought still going


def _units(text: str) -> list[str]:
    """The text's paragraphs and list items, each on one line: a line that continues a sentence
    (the line before has no end mark, this one starts in lower case) is joined to it."""
    units: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            units.append("")
        elif (units and units[-1] and not _STARTS_UNIT.match(line) and stripped[0].islower()
              and not _ENDS_WHOLE.search(units[-1]) and not _HEADING.match(units[-1])):
            units[-1] += " " + stripped
        else:
            units.append(line)
    return [u for u in units if u]


def _fragment(unit: str) -> bool:
    """A heading, a task, a line of bare links: not a thought of its own."""
    return bool(_HEADING.match(unit) or _TASK.match(unit) or _BARE_LINKS.match(unit))


def _whole(sentence: str) -> str | None:
    """The sentence with an end mark, or None when it stops mid-thought (a lead-in ending in `:`,
    a trailing comma or dash)."""
    sentence = _LEADING_MARKER.sub("", sentence.strip())  # list items a chunk joined on one line
    if not sentence or _ENDS_OPEN.search(sentence):
        return None
    return sentence if _ENDS_WHOLE.search(sentence) else sentence + "."


def passages(text: str) -> list[str]:
    """The readable paragraphs and list items of a text, without markup, in order: headings, tasks,
    bare links and lead-ins (a line ending in `:`) left out."""
    kept = _DROP_LINES.sub("", _DROP_BLOCKS.sub("", text))
    found = []
    for unit in _units(kept):
        if _fragment(unit):
            continue
        plain = clean(unit)
        plain = " ".join(w for w in plain.split() if not _symbolic(w))
        if plain.endswith(":"):  # a lead-in: what comes before it in the paragraph stays
            plain = " ".join(_SPLIT.split(plain)[:-1])
        if plain:
            found.append(plain)
    return found


def _wordy(part: str) -> bool:
    """At least four words, and mostly letters."""
    return len(part.split()) >= 4 and sum(c.isalpha() for c in part) >= 0.6 * len(part.replace(" ", ""))


def whole_sentences(text: str) -> list[str]:
    """The text's whole sentences in reading order (at least four words, mostly letters, at most
    400 characters), each ending with its end mark; no heading, task, bare link or lead-in."""
    found = []
    for passage in passages(text):
        for part in _SPLIT.split(passage):
            sentence = _whole(part)
            if sentence and len(sentence) <= 400 and _wordy(part):
                found.append(sentence)
    return found


def sentences(text: str, chunk_id: str, relevance: float = 1.0) -> list[Sentence]:
    """The whole sentences of a passage, each weighted by `relevance` times how informative it is."""
    return [Sentence(s, chunk_id, relevance * informative(s)) for s in whole_sentences(text)]


def brief(text: str, limit: int = 200) -> str:
    """For a text with no whole sentence (short bullets): its readable passages joined by `;`, as many
    as fit in `limit` characters (at least the first, cut at a word), ending with an end mark."""
    taken: list[str] = []
    for passage in passages(text):
        if taken and len("; ".join([*taken, passage])) > limit:
            break
        taken.append(passage if len(passage) <= limit else passage[:limit].rsplit(" ", 1)[0] + "…")
    joined = "; ".join(taken).rstrip(",;:-–— ")
    return joined if not joined or _ENDS_WHOLE.search(joined) else joined + "."


def first_sentence(text: str) -> str | None:
    """The first whole sentence of a note's text, as a reader meets it."""
    found = whole_sentences(text)
    return found[0] if found else None


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
