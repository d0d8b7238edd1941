"""Org-mode pages of a Logseq graph: headings are the outline, drawers give properties."""

from mnemo.documents import Document
from mnemo.ingest.segments import chunk_segments
from mnemo.sources import logseq

SETTINGS = logseq.GraphSettings(logseq.journal_pattern("yyyy_MM_dd"))

PAGE = """#+TITLE: Changelog 2020
:PROPERTIES:
:alias: Releases 2020
:END:

** [[Dec 29th, 2020]]
:PROPERTIES:
:created_at: 1609250283049
:END:
Our last release of the year.
*** [[Fixed issues]]
- the [[Sync]] button
- a [[https://example.org/docs][docs page]] typo
:LOGBOOK:
CLOCK: [2020-12-29 Tue 10:00]
:END:
"""


def _parse(text: str, rel: str) -> Document:
    (doc,) = logseq.parse_file(text.encode(), "ns", "graph", rel, None, SETTINGS)
    return doc


def test_an_org_page_is_read_as_its_outline() -> None:
    doc = _parse(PAGE, "pages/Changelog_2020.org")
    assert doc.title == "Changelog 2020" and doc.aliases[0] == "Releases 2020" and not doc.problems
    texts = [(s.depth, s.text.replace("\n", " ").split()) for s in doc.segments]
    assert texts[0] == (0, ["[[Dec", "29th,", "2020]]", "Our", "last", "release", "of", "the", "year."])
    assert [d for d, _ in texts] == [0, 1, 2, 2]  # the list under a heading is its children
    assert doc.segments[0].meta["properties"] == {"created_at": "1609250283049"}
    assert doc.segments[0].meta["line"] == 6  # line numbers are the file's
    assert {"Dec 29th, 2020", "Fixed issues", "Sync"} <= {link.target for link in doc.links}
    assert "CLOCK" not in " ".join(s.text for s in doc.segments)  # other drawers are left out
    assert "[docs page](https://example.org/docs)" in doc.segments[-1].text


def test_an_org_journal_day_is_a_journal_and_its_dated_items_are_passages() -> None:
    doc = _parse("* Monday, 05/18/2020\n** [[Changelog 2020]]\n*** Add a right sidebar.\n",
                 "journals/2020_05_18.org")
    assert doc.kind == "journal" and doc.day == "2020-05-18"
    changelog = _parse(PAGE, "pages/Changelog_2020.org")
    days = {c.timestamp[:10] for c in chunk_segments(changelog, 180, {}) if c.timestamp}
    assert days == {"2020-12-29"}
