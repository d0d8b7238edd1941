"""Periods named in questions in the languages people ask in: one table of phrasings and the
days each means (today is 2026-11-27; a month or day without a year is the latest one begun)."""

from datetime import date

import pytest

from mnemo.recall.dates import DaySpan, dates_in

TODAY = date(2026, 11, 27)
PERIODS = [
    # Portuguese
    ("Em abril de 2024 escrevi várias notas. Quais foram?", "2024-04-01", "2024-04-30"),
    ("o que anotei em 3 de fevereiro de 2024?", "2024-02-03", "2024-02-03"),
    ("no início de março de 2023", "2023-03-01", "2023-03-10"),
    ("o que escrevi em abril?", "2026-04-01", "2026-04-30"),
    # Spanish
    ("¿qué escribí el 3 de febrero de 2024?", "2024-02-03", "2024-02-03"),
    ("notas de a finales de mayo de 2024", "2024-05-21", "2024-05-31"),
    ("¿qué guardé en enero de 2024?", "2024-01-01", "2024-01-31"),
    ("qué hice en 2023", "2023-01-01", "2023-12-31"),
    # French
    ("qu'ai-je noté le 5 mai 2022 ?", "2022-05-05", "2022-05-05"),
    ("mes notes de mi-juillet 2023", "2023-07-11", "2023-07-20"),
    ("en août 2021", "2021-08-01", "2021-08-31"),
    # German
    ("was habe ich im März 2023 geschrieben?", "2023-03-01", "2023-03-31"),
    ("am 3. März 2023", "2023-03-03", "2023-03-03"),
    ("Ende Mai 2024", "2024-05-21", "2024-05-31"),
    ("im März", "2026-03-01", "2026-03-31"),
    # Italian
    ("cosa ho scritto a maggio 2022?", "2022-05-01", "2022-05-31"),
    ("il 3 maggio 2022", "2022-05-03", "2022-05-03"),
    ("nel 2021", "2021-01-01", "2021-12-31"),
    # Chinese and Japanese
    ("我在2022年5月写了什么？", "2022-05-01", "2022-05-31"),
    ("2022年5月底的笔记", "2022-05-21", "2022-05-31"),
    ("5月3日のメモ", "2026-05-03", "2026-05-03"),
    ("2023年3月14日", "2023-03-14", "2023-03-14"),
    ("2021年的笔记", "2021-01-01", "2021-12-31"),
    # English parts, weeks, ranges, seasons and quarters
    ("what did I watch in mid-July 2023?", "2023-07-11", "2023-07-20"),
    ("early May 2024", "2024-05-01", "2024-05-10"),
    ("at the end of May 2024", "2024-05-21", "2024-05-31"),
    ("what was on my list in late February 2024", "2024-02-21", "2024-02-29"),
    ("the first week of June", "2026-06-01", "2026-06-07"),
    ("the last week of May 2020", "2020-05-25", "2020-05-31"),
    ("what shipped in the week of 18 May 2020?", "2020-05-18", "2020-05-24"),
    ("on the 13th and 14th of September 2023", "2023-09-13", "2023-09-14"),
    ("in October and November 2020", "2020-10-01", "2020-11-30"),
    ("in the summer of 2023", "2023-06-01", "2023-08-31"),
    ("what shipped in Q1 2024?", "2024-01-01", "2024-03-31"),
    ("in the second quarter of 2024", "2024-04-01", "2024-06-30"),
    ("early 2023", "2023-01-01", "2023-04-30"),
    ("what did I do in December?", "2025-12-01", "2025-12-31"),
    ("in May", "2026-05-01", "2026-05-31"),
    ("notes from 2024-05", "2024-05-01", "2024-05-31"),
    ("the picture shared on December 1,2023", "2023-12-01", "2023-12-01"),
    # relative days in other languages
    ("o que fiz no mês passado?", "2026-10-01", "2026-10-31"),
    ("was war letzte Woche?", "2026-11-16", "2026-11-22"),
    ("先月のメモ", "2026-10-01", "2026-10-31"),
]


@pytest.mark.parametrize(("question", "first", "last"), PERIODS)
def test_periods_in_questions(question: str, first: str, last: str) -> None:
    assert dates_in(question, TODAY) == DaySpan(date.fromisoformat(first), date.fromisoformat(last))


@pytest.mark.parametrize("question", [
    "may I ask what the key is?",  # the verb, not the month
    "tell me about May",  # a month with no word that makes it a period
    "Mars rover notes",
    "el 31 de febrero",  # impossible
    "2022年13月",
    "version 2.14 of the app",
])
def test_words_that_are_no_period(question: str) -> None:
    assert dates_in(question, TODAY) is None
