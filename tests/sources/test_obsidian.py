"""The Obsidian parser: frontmatter, aliases, tags, wikilinks, dates, titles (examples and properties)."""

import string

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemo.documents import Link
from mnemo.sources.markdown import body_links, inline_tags, parse_link, split_frontmatter
from mnemo.sources.obsidian import parse_note


def note(text: str, path: str = "People/Alice Chen.md"):
    return parse_note(text, namespace="t", source="vault", rel_path=path, modified=None)


def test_frontmatter_aliases_tags_and_properties() -> None:
    doc = note(
        "---\ntype: person\naliases: [Ali, A. Chen]\ntags: [people/colleagues, '#friends']\n"
        "works_at: \"[[Acme Robotics]]\"\nbirthday: 1991-04-02\n---\n# Alice\nLikes #climbing and #health/running.\n"
    )
    assert doc.title == "Alice Chen"
    assert doc.aliases == ["Ali", "A. Chen"]
    assert doc.tags == ["people/colleagues", "friends", "climbing", "health/running"]
    assert doc.properties["birthday"] == "1991-04-02"
    assert Link("Acme Robotics", property="works_at") in doc.links
    assert doc.problems == []


def test_wikilink_forms() -> None:
    links = body_links(
        "See [[Project Heron#Milestones]], [[Alice Chen|Ali]], [[Kyoto trip notes#^budget]], "
        "![[whiteboard.png]] and [a note](Other%20Note.md)."
    )
    assert links == [
        Link("Project Heron", heading="Milestones"),
        Link("Alice Chen", display="Ali"),
        Link("Kyoto trip notes", block="budget"),
        Link("whiteboard.png", embed=True),
        Link("Other Note", display="a note"),
    ]


def test_links_and_tags_in_code_are_ignored() -> None:
    doc = note("Real [[Bob]] #real\n\n```\n[[Fake]] #fake\n```\n\nand `[[Inline]] #inline` here\n", "x.md")
    assert [link.target for link in doc.links] == ["Bob"]
    assert doc.tags == ["real"]


def test_headings_numbers_and_urls_are_not_tags() -> None:
    assert inline_tags("# Heading\n## Sub\nissue #123 and http://x.org/#frag and #ok/nested-tag") == ["ok/nested-tag"]


def test_invalid_frontmatter_keeps_the_body_and_reports_where() -> None:
    doc = note("---\ntitle: [unclosed\nkind: x\n---\nBody stays [[Here]].\n")
    assert doc.problems and doc.problems[0].startswith("invalid YAML frontmatter")
    assert "line" in doc.problems[0]
    assert doc.body.strip() == "Body stays [[Here]]."
    assert [link.target for link in doc.links] == ["Here"]


def test_unclosed_frontmatter_is_reported_and_whole_text_kept() -> None:
    doc = note("---\ntype: person\nno closing line\n\nBody.\n")
    assert doc.problems == ["frontmatter opens with '---' but is never closed"]
    assert "Body." in doc.body


def test_yaml_alias_bomb_is_refused() -> None:
    bomb = "---\na: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [" + ", ".join([f"*{p}"] * 9) + "]\n" for p, c in zip("abcdefg", "bcdefgh")
    ) + "---\nbody\n"
    meta = split_frontmatter(bomb)
    assert meta.properties == {} and meta.problem and "aliases" in meta.problem


def test_daily_note_is_a_journal_day() -> None:
    doc = note("Met [[Ali]].", "Daily/2026-10-14.md")
    assert (doc.kind, doc.day, doc.created) == ("journal", "2026-10-14", "2026-10-14")
    assert note("x", "Daily/2026-02-31.md").day is None


def test_bom_and_crlf() -> None:
    doc = note("\ufeff---\r\naliases: [Al]\r\n---\r\nHello [[B]]\r\n")
    assert doc.aliases == ["Al"]
    assert [link.target for link in doc.links] == ["B"]


names = st.text(alphabet=string.ascii_letters + string.digits + " _-éü", min_size=1, max_size=20).filter(lambda s: s.strip())


@given(target=names, heading=st.none() | names, display=st.none() | names)
def test_parse_link_round_trip(target: str, heading: str | None, display: str | None) -> None:
    inner = target + (f"#{heading}" if heading else "") + (f"|{display}" if display else "")
    link = parse_link(inner)
    assert link is not None
    assert link.target == target.strip()
    assert link.heading == heading
    assert link.display == (display.strip() if display else None)


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_parser_never_raises_and_keeps_the_body(text: str) -> None:
    doc = note(text, "n.md")
    assert isinstance(doc.body, str)
    if not text.lstrip("\ufeff").startswith("---"):
        assert doc.body == text.removeprefix("\ufeff")


@given(st.dictionaries(st.from_regex(r"[a-z][a-z_]{0,8}", fullmatch=True), st.text(alphabet=string.ascii_letters + " ", max_size=15), max_size=6), st.text(max_size=200))
def test_frontmatter_properties_survive(props: dict[str, str], body: str) -> None:
    import yaml

    text = "---\n" + yaml.safe_dump(props, allow_unicode=True) + "---\n" + body
    meta = split_frontmatter(text)
    assert meta.problem is None
    assert meta.properties == {k: yaml.safe_load(yaml.safe_dump(v)) for k, v in props.items()}
