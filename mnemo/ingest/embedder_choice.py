"""Which embedder a namespace uses, and why: chosen from the languages of its notes and from what
each embedder measured, recorded beside its stores.

An `embedder:` written in mnemo.yaml always wins. Otherwise a namespace whose text is English
(or whose language cannot be told) is embedded by MiniLM. One where other languages make up at
least `OTHER_LANGUAGES_MATTER` of the words gets a multilingual embedder (`e5`, or `minilm+e5`:
both models' vectors end to end) only when it measured better than MiniLM on the multilingual
questions and no worse on the English notes questions (within `ENGLISH_TOLERANCE` of MRR):
`MEASURED` holds those figures, from the evaluation named beside it (docs/EVALUATION.md). Until
a multilingual embedder does, such a namespace keeps MiniLM and says why. The choice is made at
`mnemo init` and again at every ingest, from the text itself,
and kept in `<namespace>/embedder.json`; recall and `mnemo status` read it. When it changes, the
next ingest embeds every row again (a row's embed hash names its embedder), so vectors of two
models never answer one query together once ingest has run. The choice also names the stemmer of
the namespace's full-text index: that of the language most of the words are in (Spanish notes are
searched by Spanish word stems), which ingest applies (`VectorStore.stem_text_as`).
"""

import json
import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mnemo.config import EmbedderConfig, MnemoConfig
from mnemo.ingest.languages import LanguageProfile, language_profile
from mnemo.stores import durable
from mnemo.stores.kept import file_stamp, read_json_object

if TYPE_CHECKING:
    from mnemo.documents import Document

CHOICE_FILE = "embedder.json"
DOCUMENTS_FILE = "documents.parquet"  # the namespace's documents table (`NamespaceFiles.read_documents`)
RETELL_SECONDS = 24 * 3600  # a profile kept through small changes is told afresh after this long
PROFILED_DOCUMENTS = 300  # languages are told from this many documents at most: shares within a few points
OTHER_LANGUAGES_MATTER = 0.10  # share of the words in languages other than English
ENGLISH_TOLERANCE = 0.01  # MRR the multilingual embedder may lose on the English notes questions
MULTILINGUAL = ("e5", "minilm+e5")  # the embedders that read other languages


@dataclass(frozen=True)
class Measured:
    """An embedder's note-recall MRR, recall as shipped: on the multilingual questions of the
    Spanish vault (`tests/data/notes_qa/multilingual.jsonl`) and on the English vaults' questions."""

    multilingual: float
    english: float


# benchmarks/results/multilingual-<vault>-…-2026-11-29.json: the Spanish vault's 50, and the fact questions of
# obsidian-kepano and obsidian-ideaverse (48, weighted by their questions)
MEASURED = {"minilm": Measured(multilingual=0.385, english=0.924), "e5": Measured(multilingual=0.258, english=0.793),
            # benchmarks/results/multilingual-pair-sweep-…-2026-11-29c.json, at the e5 share fitted there
            "minilm+e5": Measured(multilingual=0.368, english=0.913)}


@dataclass(frozen=True)
class EmbedderChoice:
    """The embedder kind a namespace uses, the languages its text was found in, and why."""

    kind: str
    languages: str
    reason: str
    stemmer: str = "English"  # of the full-text index: most of the words' language (`LanguageProfile.stemmer`)

    def line(self) -> str:
        """What `mnemo status` says: the embedder, why, the languages seen, and the full-text stemmer."""
        return (f"embedder: {self.kind} — {self.reason}; languages seen: {self.languages or 'none told'}; "
                f"full-text stemmer: {self.stemmer}")


def measures_better(kind: str, measured: dict[str, Measured]) -> bool:
    """Whether the embedder `kind` beat MiniLM on the multilingual questions and lost no more
    than ENGLISH_TOLERANCE of MRR on the English ones."""
    theirs, mine = measured[kind], measured["minilm"]
    return theirs.multilingual > mine.multilingual and theirs.english >= mine.english - ENGLISH_TOLERANCE


def choose_embedder(profile: LanguageProfile, measured: dict[str, Measured] = MEASURED) -> EmbedderChoice:
    """MiniLM for English (or untold) text; for text where other languages matter, the multilingual
    embedder that measured best on the multilingual questions among those that `measures_better`,
    else MiniLM."""
    other, languages = profile.other_than_english(), profile.describe()
    if not profile.shares:
        return EmbedderChoice("minilm", languages, "no language could be told from the text yet: MiniLM")
    if other < OTHER_LANGUAGES_MATTER:
        return EmbedderChoice("minilm", languages,
                              f"the text is English ({1 - other:.0%} of the words): MiniLM, the English model")
    mine = measured["minilm"]
    better = [kind for kind in MULTILINGUAL if kind in measured and measures_better(kind, measured)]
    if better:
        kind = max(better, key=lambda k: measured[k].multilingual)
        return EmbedderChoice(kind, languages,
                              f"{other:.0%} of the words are in languages other than English, and {kind} recalls "
                              f"such notes better than MiniLM (MRR {measured[kind].multilingual:.3f} against "
                              f"{mine.multilingual:.3f}; on English notes {measured[kind].english:.3f} against "
                              f"{mine.english:.3f})")
    best = max((k for k in MULTILINGUAL if k in measured), key=lambda k: measured[k].multilingual)
    theirs = measured[best]
    return EmbedderChoice("minilm", languages,
                          f"{other:.0%} of the words are in languages other than English, but no multilingual "
                          f"embedder measured better on such notes ({best}: MRR {theirs.multilingual:.3f} against "
                          f"MiniLM's {mine.multilingual:.3f}; on English notes {theirs.english:.3f} against "
                          f"{mine.english:.3f}): MiniLM")


def explicit_choice(config: MnemoConfig) -> EmbedderChoice | None:
    """The choice mnemo.yaml makes with an `embedder:` section, if it has one."""
    if "embedder" not in config.model_fields_set:
        return None
    where = f" in {config.path}" if config.path else ""
    return EmbedderChoice(config.embedder.kind, "", f"set by `embedder:`{where}")


def choose_for_documents(config: MnemoConfig, root: Path, documents: "Callable[[], list[Document]]") -> EmbedderChoice:
    """The configured embedder when mnemo.yaml names one, else the one the languages of the namespace's
    documents (its table at `root`) call for; recorded with the table's stamp and the languages
    found. They are not told again (no text is read) while the table is unchanged, nor after small
    changes (`_still_told`). They are told from an even sample of at most PROFILED_DOCUMENTS
    documents, so a large vault costs no more than a small one."""
    stamp = file_stamp(root / DOCUMENTS_FILE)
    kept = read_json_object(root / CHOICE_FILE)
    found = kept.get("profile")
    if isinstance(found, dict) and stamp is not None and _still_told(kept, stamp, root / DOCUMENTS_FILE):
        profile = LanguageProfile(dict(found.get("shares", {})), int(found.get("texts", 0)), int(found.get("words", 0)))
        told = kept.get("told")
    else:
        ordered = sorted(documents(), key=lambda d: d.id)
        sample = ordered[::max(1, math.ceil(len(ordered) / PROFILED_DOCUMENTS))]
        profile = language_profile(f"{d.title}\n{d.body}" for d in sample)
        told = [len(ordered), time.time()]
    choice = replace(_choice_for(config, profile), stemmer=profile.stemmer())
    found_now = {"documents": stamp, "profile": asdict(profile), "told": told}
    if kept != {**asdict(choice), **found_now}:
        record_choice(root, choice, found_now)
    return choice


def _still_told(kept: dict[str, Any], stamp: list[int], table: Path) -> bool:
    """Whether the kept profile still stands: the documents table is as it was told from, or it has
    changed by less than a tenth of its documents (one note edited or added) since the languages
    were told, and that was less than a day ago."""
    if kept.get("documents") == stamp:
        return True
    told = kept.get("told")
    count = _row_count(table)
    if count is None or not isinstance(told, list) or len(told) != 2:
        return False
    told_count, told_at = told
    return abs(count - told_count) * 10 < told_count and time.time() - told_at < RETELL_SECONDS


def _row_count(table: Path) -> int | None:
    """The rows of a Parquet table, from its footer (None when it is absent or unreadable)."""
    try:
        import pyarrow.parquet as pq

        return int(pq.read_metadata(table).num_rows)
    except (OSError, ValueError):
        return None


def _choice_for(config: MnemoConfig, profile: LanguageProfile) -> EmbedderChoice:
    explicit = explicit_choice(config)
    if explicit is not None:
        return EmbedderChoice(explicit.kind, profile.describe(), explicit.reason)
    return choose_embedder(profile)


def record_choice(namespace_root: Path, choice: EmbedderChoice, found: dict[str, Any] | None = None) -> None:
    """Keep the choice beside the namespace's stores (with what it was told from, when given)."""
    namespace_root.mkdir(parents=True, exist_ok=True)
    record = {**asdict(choice), **(found or {})}
    durable.write_text(namespace_root / CHOICE_FILE, json.dumps(record, indent=1), f"files:{CHOICE_FILE}")


def recorded_choice(namespace_root: Path) -> EmbedderChoice | None:
    """The choice kept by `record_choice`; None before init or ingest has made one."""
    kept = read_json_object(namespace_root / CHOICE_FILE)
    if kept.get("kind") not in ("minilm", "e5", "minilm+e5", "hashing", "openai"):
        return None
    return EmbedderChoice(str(kept["kind"]), str(kept.get("languages", "")), str(kept.get("reason", "")),
                          str(kept.get("stemmer", "English")))


def current_choice(config: MnemoConfig, namespace_root: Path) -> EmbedderChoice:
    """What the namespace uses now: mnemo.yaml's `embedder:`, else the recorded choice, else MiniLM."""
    recorded = recorded_choice(namespace_root)
    explicit = explicit_choice(config)
    if explicit is not None:
        return EmbedderChoice(explicit.kind, recorded.languages if recorded else "", explicit.reason,
                              recorded.stemmer if recorded else "English")
    return recorded or EmbedderChoice("minilm", "", "nothing ingested yet: MiniLM until ingest reads the notes")


def embedder_settings(config: MnemoConfig, choice: EmbedderChoice) -> EmbedderConfig:
    """The embedder settings a choice stands for (mnemo.yaml's own when it names the embedder)."""
    if explicit_choice(config) is not None:
        return config.embedder
    return config.embedder.model_copy(update={"kind": choice.kind})


def namespace_embedder_settings(config: MnemoConfig, namespace_root: Path) -> EmbedderConfig:
    """The embedder settings recall and ingest use for the namespace at `namespace_root`."""
    return embedder_settings(config, current_choice(config, namespace_root))
