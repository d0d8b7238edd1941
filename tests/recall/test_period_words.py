"""Periods named in questions in the languages people ask in: one table of phrasings and the
days each means (today is 2026-11-27; a month or day without a year is the latest one begun)."""

import json
from datetime import date
from pathlib import Path

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
    # ranges: the ends joined, a year written once serving both
    ("What did I jot down between mid-August and the first days of September 2024?", "2024-08-11", "2024-09-10"),
    ("¿Qué escribí entre el 9 y el 11 de abril de 2024?", "2024-04-09", "2024-04-11"),
    ("zwischen dem 9. und dem 11. April 2024", "2024-04-09", "2024-04-11"),
    ("from 3 May to 7 June 2024", "2024-05-03", "2024-06-07"),
    ("from June 2023 to March 2024", "2023-06-01", "2024-03-31"),
    ("Anfang März bis Mitte April 2024", "2024-03-01", "2024-04-20"),
    ("de finales de mayo a mediados de junio de 2024", "2024-05-21", "2024-06-20"),
    ("in late May and early June 2024", "2024-05-21", "2024-06-10"),
    ("what did I write in early May and in June 2024", "2024-05-01", "2024-06-30"),
    ("between 2022 and 2023", "2022-01-01", "2023-12-31"),
    ("between mid-December and early January 2024", "2023-12-11", "2024-01-10"),
    ("from 20 December 2023 to 5 January", "2023-12-20", "2024-01-05"),
    ("¿qué anoté entre diciembre y enero de 2021?", "2020-12-01", "2021-01-31"),
    ("2024-03-01–2024-03-15", "2024-03-01", "2024-03-15"),
    # halves, fortnights, first and last days, the leap day
    ("¿Qué hice en la segunda quincena de marzo de 2024?", "2024-03-16", "2024-03-31"),
    ("na primeira quinzena de abril de 2024", "2024-04-01", "2024-04-15"),
    ("the second fortnight of February 2024", "2024-02-16", "2024-02-29"),
    ("in the first half of 2024", "2024-01-01", "2024-06-30"),
    ("in der zweiten Hälfte des Juni 2024", "2024-06-16", "2024-06-30"),
    ("los últimos días de junio de 2023", "2023-06-21", "2023-06-30"),
    ("in the first days of September 2024", "2024-09-01", "2024-09-10"),
    ("What did I write on leap day 2024?", "2024-02-29", "2024-02-29"),
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
    "version 2019-2020 of the format",  # two years with no word that makes them a period
    "leap day 2023",  # no such day
    "may I ask from 2 to 3 things",
])
def test_words_that_are_no_period(question: str) -> None:
    assert dates_in(question, TODAY) is None


QUESTION_SETS = Path(__file__).parents[1] / "data" / "notes_qa"
# fact questions of the question sets that do name a period (none yet besides this one: "today's
# journal page" is the app's page for the day, read as today; telling the two apart needs the sense)
NAMING_A_PERIOD = {"making today's journal page show up when the app launches"}


def _fact_questions() -> list[str]:
    rows = (json.loads(line) for path in sorted(QUESTION_SETS.glob("*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return [row["question"] for row in rows if row.get("kind") == "fact"]


def test_fact_questions_of_the_question_sets_name_no_period() -> None:
    questions = _fact_questions()
    read = {question: dates_in(question, TODAY) for question in questions}
    assert len(questions) > 100
    assert {question for question, span in read.items() if span is not None} == NAMING_A_PERIOD


def test_a_date_in_quotation_marks_is_an_example_not_a_period() -> None:
    question = "日记页面的标题能不能显示成“2021年05月20日”这样的中文日期格式？在哪里设置？"
    assert dates_in(question, TODAY) is None
    assert dates_in('what did I write on 20 May 2021 about the "Journal" page?', TODAY) == DaySpan(
        date(2021, 5, 20), date(2021, 5, 20))
