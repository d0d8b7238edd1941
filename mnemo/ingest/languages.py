"""The languages a namespace's notes are written in, told from the text itself, offline.

A passage written in a non-Latin script is named by its script (Han, kana, Hangul, Cyrillic,
Arabic, Greek, Hebrew, Devanagari, Thai). A Latin-script passage is named by the language whose
commonest short words (articles, pronouns, prepositions, conjunctions) it uses most; one with
too few of them to tell is left unnamed. The profile of a namespace is each language's share of
the words of the passages that could be named.
"""

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

SAMPLE_CHARS = 4000  # of each text: enough to name its language, cheap on long notes
MIN_FUNCTION_WORDS = 3  # a Latin-script text with fewer of any language's common words is not named

FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset("a do no so my the of and to in is that it for was on are with as be this by not or have "
                    "from at which but they you we an were has their been would there what when can if will about into "
                    "than them these its only also how then other could should".split()),
    "es": frozenset("de el la los las del y en que es por con para una un se lo como más pero sus le ya este "
                    "porque esta entre cuando muy sin sobre también hasta hay donde desde todo durante "
                    "puede son ser está cada otro tiene hace qué cómo".split()),
    "pt": frozenset("de o os as do da dos das e em que é um uma para com não no na por mais como mas ao seu "
                    "sua ou quando muito já também pelo pela até isso ela entre depois sem mesmo são ser "
                    "está cada você ele foi tem".split()),
    "fr": frozenset("le la les des du de et en un une est que qui dans pour pas sur au avec ce il elle "
                    "ne se plus par son sa ses sont mais ou comme nous vous aux cette été être fait "
                    "leur très aussi".split()),
    "de": frozenset("der die das und ist nicht ein eine zu den mit sich des auf für im dem von auch es "
                    "an als wird bei oder aus wie noch nach einer sind war wenn aber nur kann durch "
                    "über haben dass werden in er sie ich wir eines einen einem zum zur vom alle".split()),
    "it": frozenset("il lo la gli le di del della che è un una per con non nel nella sono come più ma "
                    "anche questo questa si da dei delle alla al essere ha suo sua quando molto".split()),
    "nl": frozenset("de het een en van is dat niet op te zijn met voor die aan er ook als bij maar om "
                    "door naar wordt dan nog uit wat kan zijn heeft werd deze worden".split()),
}

SCRIPTS = (  # (name, first code point, last code point): the scripts that name a language family
    ("ja", 0x3040, 0x30FF), ("ko", 0xAC00, 0xD7AF), ("zh", 0x4E00, 0x9FFF), ("ru", 0x0400, 0x04FF),
    ("ar", 0x0600, 0x06FF), ("el", 0x0370, 0x03FF), ("he", 0x0590, 0x05FF), ("hi", 0x0900, 0x097F),
    ("th", 0x0E00, 0x0E7F),
)
STEMMERS = {"en": "English", "es": "Spanish", "pt": "Portuguese", "fr": "French", "de": "German", "it": "Italian",
            "nl": "Dutch", "ru": "Russian", "el": "Greek", "ar": "Arabic"}  # language -> its stemmer in LanceDB
MOST_WORDS = 0.5  # a language with this share of the words gives the full-text index its stemmer
WORD = re.compile(r"[^\W\d_]+")
URL = re.compile(r"\w+://\S+")


@dataclass(frozen=True)
class LanguageProfile:
    """Each named language's share of the named words, how many words were named, how many texts read."""

    shares: dict[str, float]
    texts: int
    words: int = 0

    def other_than_english(self) -> float:
        """The share of the words written in a language other than English."""
        return round(sum(share for lang, share in self.shares.items() if lang != "en"), 4)

    def describe(self) -> str:
        """E.g. `es 0.82, en 0.18`; `none told` when no text could be named."""
        named = sorted(self.shares.items(), key=lambda item: -item[1])
        return ", ".join(f"{lang} {share:.2f}" for lang, share in named if share >= 0.005) or "none told"

    def stemmer(self) -> str:
        """The stemmer (LanceDB's name) of the language most of the words are in, when it has one;
        else English's."""
        lang, share = max(self.shares.items(), key=lambda item: item[1], default=("en", 1.0))
        return STEMMERS.get(lang, "English") if share >= MOST_WORDS else "English"


SCRIPT_LETTERS = {name: re.compile(f"[{chr(low)}-{chr(high)}]") for name, low, high in SCRIPTS}


def text_language(text: str) -> tuple[str | None, int]:
    """The language a text is written in (None when it cannot be told) and its weight in words."""
    sample = URL.sub(" ", unicodedata.normalize("NFC", text[:SAMPLE_CHARS]))
    letters = sum(1 for c in sample if c.isalpha())
    scripts = Counter({name: len(pattern.findall(sample)) for name, pattern in SCRIPT_LETTERS.items()})
    if letters and sum(scripts.values()) * 3 >= letters:
        name, count = scripts.most_common(1)[0]
        return ("ja" if scripts["ja"] and name == "zh" else name), max(1, count // 2)
    words = Counter(WORD.findall(sample.lower()))
    hits = Counter({lang: sum(words[w] for w in common) for lang, common in FUNCTION_WORDS.items()})
    best, count = hits.most_common(1)[0] if hits else ("", 0)
    return (best, words.total()) if count >= MIN_FUNCTION_WORDS else (None, 0)


def language_profile(texts: Iterable[str]) -> LanguageProfile:
    """The languages of the texts, by share of words."""
    weights: Counter[str] = Counter()
    read = 0
    for text in texts:
        read += 1
        lang, weight = text_language(text)
        if lang:
            weights[lang] += weight
    return _profile(weights, read)


def merged_profiles(profiles: Iterable[LanguageProfile]) -> LanguageProfile:
    """One profile for the texts of several (each weighted by its named words)."""
    weights: dict[str, float] = {}
    read = 0
    for profile in profiles:
        read += profile.texts
        for lang, share in profile.shares.items():
            weights[lang] = weights.get(lang, 0.0) + share * profile.words
    return _profile(weights, read)


def _profile(weights: Mapping[str, float], read: int) -> LanguageProfile:
    total = sum(weights.values())
    shares = {lang: round(w / total, 4) for lang, w in weights.items()} if total else {}
    return LanguageProfile(shares, read, round(total))
