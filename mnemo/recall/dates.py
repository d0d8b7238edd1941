"""Dates named in a question ("on July 14, 2022", "em abril de 2024", "2022年5月底", "mid-July",
"last week") as the span of days they mean, so that eager recall can put what was written or
said then first."""

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numpy as np

from mnemo.recall.period_words import (
    MONTHS,
    PART_OF,
    PATTERNS,
    QUARTERS,
    RANGE_JOIN,
    RELATIVE_OF,
    RELATIVE_PATTERN,
    SEASON_OF,
    WEEK_OF,
)
from mnemo.recall.rank import Pool


@dataclass(frozen=True)
class DaySpan:
    """The days from `first` to `last`, inclusive."""

    first: date
    last: date

    @property
    def since(self) -> str:
        return self.first.isoformat()

    @property
    def until(self) -> str:
        """An upper bound that every ISO timestamp of the last day sorts below."""
        return self.last.isoformat() + "~"

    def holds(self, stamp: str) -> bool:
        return bool(stamp) and self.since <= stamp <= self.until


def dates_in(question: str, today: date) -> DaySpan | None:
    """The span of the first period the question names, or None (impossible dates are ignored):
    the forms of `recall.period_words`, most specific first, in the languages it lists. Two
    periods joined as a range ("between mid-August and the first days of September 2024", "del 9
    al 11 de abril") are read as one span, a year written at one end serving the other. A month
    or day without a year is the latest one that has begun by `today`; English `may` counts as
    a month only when the question spells it `May`. A date in quotation marks is an example the
    question quotes ("a title like “2021年05月20日”"), not the period it asks about."""
    text = _plain(_QUOTED.sub(" ", question))
    mentions = _mentions(text, question, today)
    if mentions:
        ordered = sorted(mentions, key=lambda mention: mention[0])
        return _range_around(text, ordered, mentions[0], today) or _span(mentions[0][2], today)
    relative = RELATIVE_PATTERN.search(text)
    return _relative(RELATIVE_OF[relative.group(0)], today) if relative else None


Mention = tuple[int, int, dict[str, str]]


def _mentions(text: str, question: str, today: date) -> list[Mention]:
    """Every possible period the text names, as (start, end, groups found), most specific form
    first; a match overlapping one already taken is a part of it."""
    taken: list[Mention] = []
    for _, pattern in PATTERNS:
        for match in pattern.finditer(text):
            found = {k: v for k, v in match.groupdict().items() if v}
            if found.get("m") == "may" and "May" not in question or _span(found, today) is None:
                continue
            if all(match.end() <= start or end <= match.start() for start, end, _ in taken):
                taken.append((match.start(), match.end(), found))
    return taken


def _range_around(text: str, ordered: list[Mention], mention: Mention, today: date) -> DaySpan | None:
    """The span from the period just before `mention` to the one just after it, when they are
    joined as a range; a year written at one end only serves both."""
    at = ordered.index(mention)
    left = ordered[at - 1] if at and RANGE_JOIN.match(text[ordered[at - 1][1]:mention[0]]) else mention
    right = ordered[at + 1] if at + 1 < len(ordered) and RANGE_JOIN.match(text[mention[1]:ordered[at + 1][0]]) \
        else mention
    if left is right:
        return None
    first_found, last_found = _with_one_year(dict(left[2]), dict(right[2]), today)
    first, last = _span(first_found, today), _span(last_found, today)
    if first is None or last is None:
        return None
    return DaySpan(min(first.first, last.first), max(first.last, last.last))


def _with_one_year(first: dict[str, str], last: dict[str, str], today: date) -> tuple[dict[str, str], dict[str, str]]:
    """The ends of a range with the year written at one end given to the other, a year apart
    when the range crosses New Year ("between December and February 2024")."""
    if "y" in last and "y" not in first:
        first["y"] = last["y"]
        if _after(first, last, today):
            first["y"] = str(int(last["y"]) - 1)
    elif "y" in first and "y" not in last:
        last["y"] = first["y"]
        if _after(first, last, today):
            last["y"] = str(int(first["y"]) + 1)
    return first, last


def _after(first_found: dict[str, str], last_found: dict[str, str], today: date) -> bool:
    """Whether the period read from `first_found` begins after the one from `last_found` ends."""
    first, last = _span(first_found, today), _span(last_found, today)
    return first is not None and last is not None and first.first > last.last


_QUOTED = re.compile(r'["“„«「『][^"”“»」』\n]{1,60}["”“»」』]')


def _plain(text: str) -> str:
    """Lower case without accents (CJK and digits as they are; full-width digits made ASCII)."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _span(found: dict[str, str], today: date) -> DaySpan | None:
    month = found.get("m")
    number = None if month is None else (int(month) if month.isdigit() else MONTHS[month])
    year = int(found["y"]) if "y" in found else None
    try:
        if number is not None:
            return _in_month(found, _year_of(year, number, int(found.get("d", 1)), today), number)
        if year is None:
            return None
        if "leap" in found:
            return DaySpan(date(year, 2, 29), date(year, 2, 29))
        if "y0" in found:
            return DaySpan(date(min(int(found["y0"]), year), 1, 1), date(max(int(found["y0"]), year), 12, 31))
        if "season" in found:
            first, last = SEASON_OF[found["season"]]
            return DaySpan(date(year, first, 1), _month(year, last).last)
        if "q" in found or "qw" in found:
            quarter = int(found["q"]) if "q" in found else QUARTERS[found["qw"]]
            return DaySpan(date(year, 3 * quarter - 2, 1), _month(year, 3 * quarter).last)
        if "part" in found:
            first_month, last_month = _YEAR_PARTS[PART_OF[found["part"]]]
            return DaySpan(date(year, first_month, 1), _month(year, last_month).last)
        return DaySpan(date(year, 1, 1), date(year, 12, 31))
    except (ValueError, KeyError):
        return None


# the days of a month and the months of a year each part of `period_words.PARTS` means
_MONTH_PARTS = {"early": (1, 10), "first days": (1, 10), "mid": (11, 20), "late": (21, 31), "last days": (21, 31),
                "first half": (1, 15), "second half": (16, 31)}
_YEAR_PARTS = {"early": (1, 4), "first days": (1, 1), "mid": (5, 8), "late": (9, 12), "last days": (12, 12),
               "first half": (1, 6), "second half": (7, 12)}


def _year_of(year: int | None, month: int, day: int, today: date) -> int:
    """The year given, else the latest year in which that month and day are not after today."""
    if year is not None:
        return year
    return today.year if (month, day) <= (today.month, today.day) else today.year - 1


def _in_month(found: dict[str, str], year: int, month: int) -> DaySpan:
    whole = _month(year, month)
    if "m0" in found:  # the first month of a range; after the last, it is of the year before
        first_month = MONTHS[found["m0"]]
        return DaySpan(date(year if first_month <= month else year - 1, first_month, 1), whole.last)
    if "d" in found:
        day = date(year, month, int(found["d"]))
        first = min(date(year, month, int(found["d0"])), day) if "d0" in found else day
        return DaySpan(first, day + timedelta(days=6 if "wk" in found else 0))
    if "week" in found:
        n = WEEK_OF[found["week"]]
        if n == 5:
            return DaySpan(whole.last - timedelta(days=6), whole.last)
        return DaySpan(date(year, month, 7 * n - 6), date(year, month, 7 * n))
    if "part" in found:
        start, end = _MONTH_PARTS[PART_OF[found["part"]]]
        return DaySpan(date(year, month, start), date(year, month, min(end, whole.last.day)))
    return whole


def _month(year: int, month: int) -> DaySpan:
    first = date(year, month, 1)
    return DaySpan(first, (first + timedelta(days=32)).replace(day=1) - timedelta(days=1))


def _relative(phrase: str, today: date) -> DaySpan:
    monday = today - timedelta(days=today.weekday())
    spans = {
        "today": lambda: DaySpan(today, today),
        "yesterday": lambda: DaySpan(today - timedelta(days=1), today - timedelta(days=1)),
        "this week": lambda: DaySpan(monday, today),
        "last week": lambda: DaySpan(monday - timedelta(days=7), monday - timedelta(days=1)),
        "this month": lambda: DaySpan(today.replace(day=1), today),
        "last month": lambda: _month(*((today.year, today.month - 1) if today.month > 1 else (today.year - 1, 12))),
        "this year": lambda: DaySpan(date(today.year, 1, 1), today),
        "last year": lambda: DaySpan(date(today.year - 1, 1, 1), date(today.year - 1, 12, 31)),
    }
    return spans[phrase]()


def add_dated(pool: Pool, rows: list[dict[str, Any]], vector: np.ndarray, cosine_weight: float) -> None:
    """The passages of the days the question names (`rows`, nearest the query first) join the
    pool, scored by their cosine alone when the searches did not reach them."""
    norm = float(np.linalg.norm(vector)) or 1.0
    for row in rows:
        if row["id"] not in pool.scores:
            row_vector = np.asarray(row["vector"], dtype=np.float32)
            cosine = float(row_vector @ vector) / (norm * (float(np.linalg.norm(row_vector)) or 1.0))
            pool.add(row["id"], cosine_weight * cosine, "date", row)


def favour_dated(pool: Pool, span: DaySpan, weight: float) -> None:
    """Passages of the days the question names go before the others, in their own order (each
    gains `weight` times the best score): a date in a question is as strong a cue as its words."""
    top = abs(max(pool.scores.values(), default=0.0))
    for row_id in pool.scores:
        if span.holds(pool.rows[row_id].get("timestamp") or ""):
            pool.scores[row_id] += weight * top
            pool.reasons[row_id].append("date")
