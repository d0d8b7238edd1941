"""Logseq page properties: only the mnemo-* lines change, on any page Hypothesis can think of."""

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.errors import WritebackRefused
from mnemo.sources.logseq_properties import page_name, page_properties, property_lines, without_properties
from mnemo.writeback.frontmatter import OptedOut
from mnemo.writeback.logseq import logseq_patch, render_lines

PREFIX = "mnemo"
PROPERTY_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.text(st.sampled_from(string.ascii_lowercase + "-"), min_size=1, max_size=10).filter(
    lambda k: k[0] != "-" and not k.startswith(PREFIX)
)
line_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=25)
values = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=25).map(str.strip)


@st.composite
def mnemo_values(draw: st.DrawFn) -> dict[str, str]:
    found = draw(st.dictionaries(st.sampled_from(["mentions", "related", "summary", "community"]), st.text(max_size=30), max_size=4))
    found["updated"] = draw(st.dates()).isoformat()
    return found


@st.composite
def pages(draw: st.DrawFn) -> tuple[str, str, dict[str, str]]:
    """(page text, the text expected after writing the values, values), built from known parts."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    props = [f"{k}:: {v}".rstrip() + nl for k, v in draw(st.dictionaries(names, values, max_size=5)).items()]
    body_lines = draw(st.lists(st.one_of(
        line_text.map(lambda t: "- " + t), line_text.map(lambda t: "\t- " + t),
        st.sampled_from(["  id:: 64f0c0de", "---", "mnemo-related:: [[in a block]]", "", "#+BEGIN_QUERY"]),
    ), max_size=6))
    if body_lines and property_lines(body_lines[0] + "\n"):
        body_lines.insert(0, "- first block")
    body = nl.join(body_lines) + (nl if body_lines and draw(st.booleans()) else "")
    sep = draw(st.sampled_from(["", nl])) if props and body else ""
    wanted = draw(mnemo_values())
    at = draw(st.integers(0, len(props)))
    old = "".join(render_lines(PREFIX, draw(mnemo_values()), nl)) if props and draw(st.booleans()) else ""
    parts = [bom, "".join(props[:at]), old, "".join(props[at:]), sep, body]
    text = "".join(parts)
    strip = not body and nl in text.removesuffix(nl) and draw(st.booleans())
    if strip:
        text = text.removesuffix(nl)
    seen = nl if "\n" in text else "\n"
    block = "".join(render_lines(PREFIX, wanted, seen))
    if not props:
        return text, bom + block + body, wanted
    if old:
        parts[2] = block
    else:
        parts[3] += block
    expected = "".join(parts)
    return text, expected.removesuffix(nl) if strip else expected, wanted


@PROPERTY_SETTINGS
@given(pages())
def test_only_the_mnemo_property_lines_change(case: tuple[str, str, dict[str, str]]) -> None:
    text, expected, wanted = case
    patch = logseq_patch(text, PREFIX, wanted)
    if patch is None:
        current = {k: v for k, v in page_properties(text).items() if k.startswith(PREFIX + "-")}
        assert {k: v for k, v in current.items() if not k.endswith("updated")} == {
            f"{PREFIX}-{k}": " ".join(v.split()) for k, v in wanted.items() if k != "updated"
        }
        return
    patched = patch.apply(text)
    assert patched == expected
    others = [p.line.rstrip("\r\n") for p in property_lines(text) if not p.key.startswith(PREFIX + "-")]
    assert [p.line.rstrip("\r\n") for p in property_lines(patched) if not p.key.startswith(PREFIX + "-")] == others


@PROPERTY_SETTINGS
@given(pages(), st.dates())
def test_twice_is_once_and_undo_restores(case: tuple[str, str, dict[str, str]], other_day: object) -> None:
    """Applying twice equals applying once (even on another day); the inverse restores the bytes."""
    text, _, wanted = case
    patch = logseq_patch(text, PREFIX, wanted)
    if patch is None:
        return
    patched = patch.apply(text)
    assert logseq_patch(patched, PREFIX, wanted) is None
    assert logseq_patch(patched, PREFIX, {**wanted, "updated": str(other_day)}) is None
    assert patch.inverse().apply(patched) == text
    assert without_properties(patched, PREFIX) == without_properties(text, PREFIX)


def test_a_page_without_properties_gets_page_properties_and_nothing_else() -> None:
    text = "- first bullet\n\t- child\n"
    patched = logseq_patch(text, PREFIX, {"related": "[[A]], [[B]]", "updated": '"2026-01-01"'}).apply(text)
    assert patched == 'mnemo-related:: [[A]], [[B]]\nmnemo-updated:: "2026-01-01"\n- first bullet\n\t- child\n'
    assert without_properties(patched, PREFIX) == text


def test_our_lines_follow_the_page_properties() -> None:
    text = "type:: [[Feature]]\r\ndescription:: x\r\n\r\n- body\r\n"
    patched = logseq_patch(text, PREFIX, {"mentions": '"X"', "updated": "[[Jan 1st, 2026]]"}).apply(text)
    assert patched == (
        'type:: [[Feature]]\r\ndescription:: x\r\nmnemo-mentions:: "X"\r\nmnemo-updated:: [[Jan 1st, 2026]]\r\n\r\n- body\r\n'
    )


def test_opt_out_and_scattered_lines() -> None:
    with pytest.raises(OptedOut):
        logseq_patch("mnemo:: false\n- x\n", PREFIX, {"updated": "2026-01-01"})
    with pytest.raises(WritebackRefused, match="consecutive"):
        logseq_patch("mnemo-a:: 1\ntype:: x\nmnemo-b:: 2\n", PREFIX, {"updated": "2026-01-01"})


@pytest.mark.parametrize("stem, title, name", [
    ("Community___Query Learning Sprint (Summer 2022)", None, "Community/Query Learning Sprint (Summer 2022)"),
    ("New to Logseq%3F", None, "New to Logseq?"),
    ("2021_03_01", None, "Mar 1st, 2021"),
    ("2020_09_12", None, "Sep 12th, 2020"),
    ("2021_02_22", None, "Feb 22nd, 2021"),
    ("examples", "The Examples", "The Examples"),
])
def test_page_names_follow_logseq(stem: str, title: str | None, name: str) -> None:
    assert page_name(stem, title) == name


def test_the_scanner_fingerprint_ignores_mnemo_properties() -> None:
    from mnemo.sources.scan import file_fingerprint

    page = "type:: [[Feature]]\n\n- body\n"
    written = logseq_patch(page, PREFIX, {"related": "[[A]]", "updated": "2026-01-01"}).apply(page)
    assert file_fingerprint(written.encode(), "logseq") == file_fingerprint(page.encode(), "logseq")
    assert file_fingerprint(written.encode(), "obsidian") != file_fingerprint(page.encode(), "obsidian")
    assert file_fingerprint((written + "- more\n").encode(), "logseq") != file_fingerprint(page.encode(), "logseq")
