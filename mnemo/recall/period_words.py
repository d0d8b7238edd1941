"""The words and forms that name a period in a question, in English, Portuguese, Spanish, French,
German, Italian, Chinese and Japanese: tables, and the patterns built from them.

Questions are matched lower-cased and without accents (`março` reads `marco`, `März` `marz`),
so every word here is written that way. Each pattern's named groups say what it found:
`y` a year, `m` a month (word or number), `d` a day (`m0`, `d0`, `y0` the first of a range;
`wk` the week from the day), `part` early/mid/late or a half, `week` an ordinal
week of a month, `season`, `q` a quarter, `leap` the leap day; `dates.dates_in` reads them alike.
Two periods joined by `RANGE_JOIN` ("between mid-August and the first days of September 2024")
are read as one range, a year written once serving both ends.
"""

import re

_MONTH_NAMES = (
    ("january", "janeiro", "enero", "janvier", "januar", "janner", "gennaio"),
    ("february", "fevereiro", "febrero", "fevrier", "februar", "febbraio"),
    ("march", "marco", "marzo", "mars", "marz", "maerz"),
    ("april", "abril", "avril", "aprile"),
    ("may", "maio", "mayo", "mai", "maggio"),
    ("june", "junho", "junio", "juin", "juni", "giugno"),
    ("july", "julho", "julio", "juillet", "juli", "luglio"),
    ("august", "agosto", "aout"),
    ("september", "setembro", "septiembre", "setiembre", "septembre", "settembre"),
    ("october", "outubro", "octubre", "octobre", "oktober", "ottobre"),
    ("november", "novembro", "noviembre", "novembre"),
    ("december", "dezembro", "diciembre", "decembre", "dezember", "dicembre"),
)
_ABBREVIATIONS = ("jan", "feb", "mar", "apr", "", "jun", "jul", "aug", "sep|sept", "oct", "nov", "dec")
MONTHS = {name: n for n, names in enumerate(_MONTH_NAMES, 1) for name in names}
MONTHS.update({a: n for n, group in enumerate(_ABBREVIATIONS, 1) for a in group.split("|") if a})

# early / mid / late in a month or a year (a month's days 1-10, 11-20, 21-end; a year's thirds)
PARTS = {
    "early": ("early", "beginning", "start", "inicio", "inicios", "principios", "comienzos", "comeco", "debut",
              "anfang", "inizio", "primi", "初", "上旬"),
    "mid": ("mid", "middle", "mediados", "meados", "mi", "mitte", "meta", "中旬"),
    "late": ("late", "end", "finales", "fines", "final", "finais", "fim", "fin", "ende", "fine", "底", "末", "下旬"),
    # a month's first or last days read as its early or late part; halves are days 1-15 and 16-end
    # (a year's halves are January-June and July-December)
    "first days": ("first days", "first few days", "primeros dias", "primeiros dias", "ersten tage",
                   "ersten tagen", "premiers jours", "primi giorni"),
    "last days": ("last days", "last few days", "ultimos dias", "letzten tage", "letzten tagen", "derniers jours",
                  "ultimi giorni"),
    "first half": ("first half", "first fortnight", "primera quincena", "primera mitad", "primeira quinzena",
                   "primeira metade", "erste halfte", "ersten halfte", "premiere quinzaine", "prima quindicina",
                   "prima meta"),
    "second half": ("second half", "second fortnight", "latter half", "segunda quincena", "segunda mitad",
                    "segunda quinzena", "segunda metade", "zweite halfte", "zweiten halfte", "seconde quinzaine",
                    "deuxieme quinzaine", "seconda quindicina", "seconda meta"),
}
PART_OF = {word: part for part, words in PARTS.items() for word in words}
WEEK_ORDINALS = {
    1: ("first", "1st", "primeira", "primera", "premiere", "prima", "erste", "ersten"),
    2: ("second", "2nd", "segunda", "deuxieme", "seconde", "seconda", "zweite", "zweiten"),
    3: ("third", "3rd", "terceira", "tercera", "troisieme", "terza", "dritte", "dritten"),
    4: ("fourth", "4th", "quarta", "cuarta", "quatrieme", "vierte", "vierten"),
    5: ("last", "ultima", "derniere", "letzte", "letzten"),  # the last seven days of the month
}
WEEK_OF = {word: n for n, words in WEEK_ORDINALS.items() for word in words}
# northern seasons (winter spans two years and is left out)
SEASONS = {
    (3, 5): ("spring", "primavera", "printemps", "fruhling", "fruehling"),
    (6, 8): ("summer", "verao", "verano", "ete", "sommer", "estate"),
    (9, 11): ("autumn", "fall", "outono", "otono", "automne", "herbst", "autunno"),
}
SEASON_OF = {word: months for months, words in SEASONS.items() for word in words}
QUARTERS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
LEAP_DAY = ("leap day", "dia bisiesto", "dia bissexto", "schalttag", "jour bissextile", "giorno bisestile")
# words before a month or a year that make it a period ("in May", "em abril", "im Jahr 2023")
_PERIOD_PREPOSITIONS = ("in", "during", "throughout", "since", "em", "en", "no", "na", "durante", "desde", "im",
                        "seit", "a", "ad", "nel", "nell'anno", "au mois de", "in the month of", "el mes de",
                        "no mes de", "im jahr", "en el ano", "no ano de", "dans l'annee")

_RANGE_OPENERS = ("between", "from", "entre", "de", "desde", "zwischen", "von", "vom", "du", "dal", "da")


def _any(words: object) -> str:
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"  # type: ignore[call-overload]


_MONTH = f"(?P<m>{_any(MONTHS)})\\.?"
_FULL_MONTH = f"(?P<m>{_any(n for names in _MONTH_NAMES for n in names)})"
_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th|er|o|\.)?"
_YEAR = r"(?P<y>(?:19|20)\d\d)"
_OF = r"(?:\s+(?:of|de|del|di|des|im)\s+(?:the\s+)?|\s+d'|\s+)"  # between a word and the month or year it is of
_AND = r"\s*(?:and|to|through|until|till|-|–|a|al|au|bis|e|y|et|und|hasta|ate)\s*"  # the ends of a range
_ARTICLE = r"(?:(?:the|el|la|le|o|a|dem|den|der|il|lo)\s+)"
_MY = r",?\s*(?:(?:de|del|of)\s+)?"  # between a month and its year
_PART = f"(?P<part>{_any(w for w in PART_OF if w.isascii())})"
_PART_JOIN = r"(?:[\s-]+(?:of|de|del|di|des|im)(?:\s+the)?)?(?:[\s-]+|\s+d')"
_WEEK = f"(?P<week>{_any(WEEK_OF)})\\s+(?:week|semana|semaine|settimana|woche){_OF}"
_SEASON = f"(?P<season>{_any(SEASON_OF)})"
_NOT_DIGIT_AFTER = r"(?![\d-])"
_CJK_PART = f"(?P<part>{_any(w for w in PART_OF if not w.isascii())})"

# (name, pattern): the most specific forms first; a form without a year is read as the latest
# such period that has begun by today
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(text)) for name, text in (
    ("iso day", r"\b(?P<y>(?:19|20)\d\d)[-/](?P<m>\d\d)[-/](?P<d>\d\d)\b"),
    ("cjk", rf"{_YEAR}\s*年\s*の?\s*(?P<m>\d{{1,2}})\s*月\s*(?:(?P<d>\d{{1,2}})\s*[日号]|{_CJK_PART})?"),
    ("week of day", rf"\b(?P<wk>week)\s+of\s+(?:the\s+)?{_DAY}\s*(?:of\s+)?{_MONTH}{_MY}{_YEAR}\b"),
    ("leap day", rf"\b(?P<leap>{_any(LEAP_DAY)}){_OF}?{_YEAR}\b"),
    ("days month year", rf"\b(?P<d0>\d{{1,2}})(?:st|nd|rd|th|er|o|\.)?{_AND}{_ARTICLE}?{_DAY}\s*(?:de\s+|of\s+)?"
                        rf"{_MONTH}{_MY}{_YEAR}\b"),
    ("day month year", rf"\b{_DAY}\s*(?:de\s+|of\s+)?{_MONTH}{_MY}{_YEAR}\b"),
    ("month day year", rf"\b{_MONTH}\s+{_DAY}(?:,\s*|\s+){_YEAR}\b"),
    ("week of month", rf"\b{_WEEK}{_MONTH}(?:{_MY}{_YEAR})?\b"),
    ("part of month", rf"\b{_PART}{_PART_JOIN}{_MONTH}(?:{_MY}{_YEAR})?\b"),
    ("months year", rf"\b(?P<m0>{_any(MONTHS)}){_AND}{_MONTH}{_MY}{_YEAR}\b"),
    ("month year", rf"\b{_MONTH}{_MY}{_YEAR}\b"),
    ("iso month", rf"\b{_YEAR}-(?P<m>\d\d){_NOT_DIGIT_AFTER}"),
    ("season", rf"\b{_SEASON}{_OF}?{_YEAR}\b"),
    ("quarter", rf"\bq(?P<q>[1-4])\s*(?:of\s+)?'?{_YEAR}\b"),
    ("year quarter", rf"\b{_YEAR}\s*-?\s*q(?P<q>[1-4])\b"),
    ("quarter words", rf"\b(?P<qw>first|second|third|fourth)\s+quarter\s+of\s+{_YEAR}\b"),
    ("part of year", rf"\b{_PART}{_PART_JOIN}{_YEAR}\b"),
    ("cjk year", rf"{_YEAR}\s*年\s*{_CJK_PART}?(?!\s*の?\s*\d{{1,2}}\s*月)"),
    ("years", rf"\b{_any(_PERIOD_PREPOSITIONS + _RANGE_OPENERS)}\s+(?P<y0>(?:19|20)\d\d){_AND}{_YEAR}\b"),
    ("year", rf"\b{_any(_PERIOD_PREPOSITIONS)}\s+{_YEAR}\b"),
    ("cjk month day", rf"(?<![年\d])(?P<m>\d{{1,2}})\s*月\s*(?:(?P<d>\d{{1,2}})\s*[日号]|{_CJK_PART})?"),
    ("day month", rf"\b{_DAY}\s*(?:de\s+|of\s+)?{_FULL_MONTH}\b"),
    ("on month day", rf"\bon\s+(?:the\s+)?{_FULL_MONTH}\s+{_DAY}\b{_NOT_DIGIT_AFTER}"),
    ("month", rf"(?:^|\s){_any(_PERIOD_PREPOSITIONS)}\s+(?:(?:the\s+)?month\s+of\s+)?{_FULL_MONTH}\b"),
))

# what may stand between two periods read as one range ("mid-August and the first days of September")
RANGE_JOIN = re.compile(rf"^,?{_AND}(?:(?:in|on|en|em|im|am)\s+)?{_ARTICLE}?$")

RELATIVE = {
    "today": ("today", "hoje", "hoy", "aujourd'hui", "heute", "oggi", "今天", "今日"),
    "yesterday": ("yesterday", "ontem", "ayer", "gestern", "ieri", "昨天", "昨日"),
    "this week": ("this week", "esta semana", "cette semaine", "diese woche", "questa settimana", "这周", "本周",
                  "今週"),
    "last week": ("last week", "semana passada", "semana pasada", "semaine derniere", "letzte woche",
                  "letzten woche", "settimana scorsa", "上周", "上个星期", "先週"),
    "this month": ("this month", "este mes", "este mes", "ce mois", "diesen monat", "questo mese", "这个月",
                   "本月", "今月"),
    "last month": ("last month", "mes passado", "mes pasado", "mois dernier", "letzten monat", "mese scorso",
                   "上个月", "先月"),
    "this year": ("this year", "este ano", "cette annee", "dieses jahr", "quest'anno", "今年"),
    "last year": ("last year", "ano passado", "ano pasado", "annee derniere", "letztes jahr", "letzten jahr",
                  "anno scorso", "去年", "昨年"),
}
RELATIVE_OF = {word: phrase for phrase, words in RELATIVE.items() for word in words}
RELATIVE_PATTERN = re.compile(f"(?<![a-z]){_any(RELATIVE_OF)}(?![a-z])")
