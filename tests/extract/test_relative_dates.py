"""Relative dates in a turn, resolved against the day it was said; vague phrases left alone."""

import datetime as dt

import pytest

from mnemo.extract.relative_dates import resolve_relative, turn_dates

MONDAY = dt.date(2023, 5, 8)  # a Monday
SATURDAY = dt.date(2023, 7, 15)


def spans(text: str, anchor: dt.date = MONDAY) -> list[tuple[str, str, str]]:
    return [(r.phrase, r.first.isoformat(), r.last.isoformat()) for r in resolve_relative(text, anchor)]


@pytest.mark.parametrize(("text", "first", "last"), [
    ("I went to a support group yesterday", "2023-05-07", "2023-05-07"),
    ("We hiked last Saturday", "2023-05-06", "2023-05-06"),
    ("last Monday was rough", "2023-05-01", "2023-05-01"),
    ("I ran a charity race two weeks ago", "2023-04-24", "2023-04-30"),
    ("3 days ago I signed up", "2023-05-05", "2023-05-05"),
    ("a couple of days ago we met", "2023-05-06", "2023-05-06"),
    ("My art show is next month!", "2023-06-01", "2023-06-30"),
    ("I started last year", "2022-01-01", "2022-12-31"),
    ("the parade was last week", "2023-05-01", "2023-05-07"),
    ("we went camping last weekend", "2023-05-06", "2023-05-07"),
    ("the interview is next Friday", "2023-05-12", "2023-05-12"),
    ("the trip is in two weeks", "2023-05-22", "2023-05-28"),
    ("I was up late last night", "2023-05-07", "2023-05-07"),
    ("we met on 4 May", "2023-05-04", "2023-05-04"),
])
def test_phrases_resolve_against_the_day_said(text: str, first: str, last: str) -> None:
    assert [(f, t) for _, f, t in spans(text)] == [(first, last)]


def test_the_weekday_and_weekend_depend_on_the_day_said() -> None:
    assert spans("last Saturday", SATURDAY) == [("last Saturday", "2023-07-08", "2023-07-08")]
    assert spans("this weekend", SATURDAY) == [("this weekend", "2023-07-15", "2023-07-16")]
    assert spans("last weekend", SATURDAY) == [("last weekend", "2023-07-08", "2023-07-09")]


@pytest.mark.parametrize("text", [
    "a few weeks ago I went", "years ago", "the last time I saw her", "next steps are unclear",
    "the other day", "on Saturday we rest", "it took two weeks", "some days ago", "lastweek", "weeks ago",
])
def test_vague_phrases_are_not_resolved(text: str) -> None:
    assert spans(text) == []


def test_several_dates_in_order_and_as_metadata() -> None:
    found = turn_dates("Yesterday was busy, and next month I move.", "2023-05-08T13:56:00")
    assert found == [{"phrase": "Yesterday", "from": "2023-05-07", "to": "2023-05-07"},
                     {"phrase": "next month", "from": "2023-06-01", "to": "2023-06-30"}]


def test_no_day_said_means_nothing_resolved() -> None:
    assert turn_dates("I went there yesterday", None) == []
    assert turn_dates("I went there yesterday", "not a date") == []
