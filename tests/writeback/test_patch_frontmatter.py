"""Frontmatter patching: only the lines of the mnemo-* properties change, on any note Hypothesis can think of."""

import datetime as dt
import json
import re
import string

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.errors import WritebackRefused
from mnemo.sources.markdown import split_frontmatter
from mnemo.sources.note_layout import without_block
from mnemo.writeback.frontmatter import (
    OptedOut,
    Value,
    frontmatter_patch,
    quote,
    render_block,
    same_insight,
    written_values,
)

KEY = "mnemo"
PROPERTY_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

printable = st.characters(categories=["L", "N", "P", "S", "Zs"], exclude_characters="\x85\u2028\u2029\ufeff")
words = st.text(st.sampled_from(string.ascii_letters + "éøßжλ中文"), min_size=1, max_size=8)
plain = st.lists(words, min_size=1, max_size=3).map(" ".join)
anything = st.text(st.characters(codec="utf-8"), max_size=30)  # what a UTF-8 file can hold: no lone surrogates
keys = st.text(st.sampled_from(string.ascii_lowercase + "_-"), min_size=1, max_size=10).filter(
    lambda k: k[0] not in "-_" and not k.startswith(KEY) and k not in {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
)


def _single(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _value_lines(draw: st.DrawFn, nl: str) -> str:
    """One frontmatter value, in one of the styles people use (the text after `key:`)."""
    style = draw(st.sampled_from(["plain", "single", "double", "flow", "block", "compact", "map", "literal", "scalar", "empty"]))
    text = draw(st.text(printable, max_size=20))
    if style == "plain":
        return " " + draw(plain) + nl
    if style == "single":
        return " " + _single(text) + nl
    if style == "double":
        return " " + json.dumps(draw(anything)) + nl
    if style == "flow":
        return " [" + ", ".join(draw(st.lists(plain, max_size=3))) + "]" + nl
    if style in ("block", "compact"):
        indent = "  " if style == "block" else ""
        items = draw(st.lists(st.one_of(plain, anything.map(json.dumps), st.just('"[[Some Note]]"')), min_size=1, max_size=3))
        return nl + "".join(f"{indent}- {item}{nl}" for item in items)
    if style == "map":
        inner = draw(st.dictionaries(keys, plain, min_size=1, max_size=3))
        return nl + "".join(f"  {k}: {v}{nl}" for k, v in inner.items())
    if style == "literal":
        line = st.text(printable, min_size=1, max_size=15).filter(lambda t: not t[0].isspace())
        lines = draw(st.lists(line, min_size=1, max_size=3))
        return " |" + nl + "".join(f"  {line}{nl}" for line in lines)
    if style == "scalar":
        return " " + draw(st.sampled_from(["2024-05-01", "42", "-3.5", "true", "null", "~"])) + nl
    return nl


def _old_mnemo(draw: st.DrawFn, nl: str) -> str:
    """Existing mnemo lines: mnemo's own earlier output (new or old nested form), or ones a person wrote."""
    form = draw(st.sampled_from(["ours", "nested", "flow", "quoted", "compact", "scalar", "prefixed"]))
    if form == "ours":
        return render_block(KEY, draw(insights()), nl)
    if form == "nested":
        return nl.join([f"{KEY}:", "  about:", '    - "person_id:alice"', "  related:", '    - "[[A]]"',
                        "  salience: 1.0", '  consolidated: "2026-01-01"']) + nl
    if form == "flow":
        return f"{KEY}: {{about: [a, b], n: 1}}{nl}"
    if form == "quoted":
        return f'"{KEY}-related":{nl}  - x{nl}'
    if form == "compact":
        return f"{KEY}-mentions:{nl}- one{nl}- two{nl}"
    if form == "prefixed":
        return f"{KEY}-old: 3{nl}'{KEY}-other': [a]{nl}"
    return f"{KEY}: some text{nl}"


@st.composite
def insights(draw: st.DrawFn) -> dict[str, Value]:
    value: dict[str, Value] = {}
    if draw(st.booleans()):
        value["related"] = [f"[[{t}]]" for t in draw(st.lists(anything, min_size=1, max_size=3))]
    if draw(st.booleans()):
        value["mentions"] = draw(st.lists(anything, min_size=1, max_size=3))
    if draw(st.booleans()):
        value["summary"] = draw(st.text(st.characters(codec="utf-8"), max_size=60))
    if draw(st.booleans()):
        value["count"] = float(draw(st.integers(0, 1000)))
    if draw(st.booleans()):
        value["mentioned-count"] = draw(st.integers(0, 10**9))
    if draw(st.booleans()):
        value["community"] = "[[" + draw(anything) + "]]"
    value["updated"] = draw(st.dates(dt.date(1900, 1, 1), dt.date(2999, 12, 31)))
    return value


@st.composite
def notes(draw: st.DrawFn) -> tuple[str, str, dict[str, Value]]:
    """(note text, the text expected after writing `value`, value), built from known parts."""
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    body_lines = draw(st.lists(st.one_of(
        st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=30),
        st.sampled_from(["---", "mnemo: not frontmatter", "# heading", "- [[link]]", "", "----"]),
    ), max_size=6))
    body = nl.join(body_lines) + (nl if body_lines and draw(st.booleans()) else "")
    value = draw(insights())
    block = render_block(KEY, value, nl)
    if not draw(st.booleans()):
        if body.startswith(("---", "\ufeff")):
            body = "text" + nl + body
        seen = nl if "\n" in body else "\n"
        block = render_block(KEY, value, seen)
        return bom + body, bom + "---" + seen + block + "---" + seen + body, value
    segments = []
    for key in draw(st.lists(keys, unique=True, max_size=6)):
        segments.append(key + ":" + _value_lines(draw, nl))
        if draw(st.integers(0, 4)) == 0:
            segments.append(draw(st.sampled_from(["", "# a comment", "#" + draw(st.text(printable, max_size=15))])) + nl)
    opening = "---" + draw(st.sampled_from(["", " ", "\t"])) + nl
    closing = draw(st.sampled_from(["---", "---  ", "-----"])) + draw(st.sampled_from([nl, ""]) if not body else st.just(nl))
    if draw(st.booleans()):
        at = draw(st.integers(0, len(segments)))
        before, after = segments[:at], segments[at:]
        old = _old_mnemo(draw, nl)
        text = bom + opening + "".join(before) + old + "".join(after) + closing + body
        expected = bom + opening + "".join(before) + block + "".join(after) + closing + body
    else:
        text = bom + opening + "".join(segments) + closing + body
        expected = bom + opening + "".join(segments) + block + closing + body
    return text, expected, value


def _ours(props: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in props.items() if k == KEY or k.startswith(KEY + "-")}


@PROPERTY_SETTINGS
@given(notes())
def test_only_the_mnemo_lines_change(case: tuple[str, str, dict[str, Value]]) -> None:
    text, expected, value = case
    assert split_frontmatter(text.removeprefix("\ufeff")).problem is None
    patch = frontmatter_patch(text, KEY, value)
    old_props = split_frontmatter(text.removeprefix("\ufeff")).properties
    if patch is None:
        assert same_insight(_ours(old_props), written_values(KEY, value), f"{KEY}-updated")
        return
    patched = patch.apply(text)
    assert patched == expected
    new_props = split_frontmatter(patched.removeprefix("\ufeff")).properties
    assert _ours(new_props) == {f"{KEY}-{k}": (v.isoformat() if isinstance(v, dt.date) else v) for k, v in value.items()}
    assert [(k, v) for k, v in new_props.items() if k not in _ours(new_props)] == [
        (k, v) for k, v in old_props.items() if k not in _ours(old_props)]


@PROPERTY_SETTINGS
@given(notes(), st.dates())
def test_twice_is_once_and_undo_restores(case: tuple[str, str, dict[str, Value]], other_day: dt.date) -> None:
    """Applying twice equals applying once (even on another day); the inverse restores the bytes."""
    text, _, value = case
    patch = frontmatter_patch(text, KEY, value)
    if patch is None:
        return
    patched = patch.apply(text)
    assert frontmatter_patch(patched, KEY, value) is None
    assert frontmatter_patch(patched, KEY, {**value, "updated": other_day}) is None
    assert patch.inverse().apply(patched) == text
    assert without_block(patched, KEY) == without_block(text, KEY)


@PROPERTY_SETTINGS
@given(st.text())
def test_quoted_strings_read_back_exactly(text: str) -> None:
    props = split_frontmatter(f"---\nk: {quote(text)}\n---\n").properties
    assert props == {"k": text}


def test_a_note_without_frontmatter_gets_one_and_keeps_its_body() -> None:
    text = "\ufeff# Title\r\n\r\nBody with --- and mnemo: inside\r\n"
    patch = frontmatter_patch(text, KEY, {"related": ["[[A]]"], "updated": dt.date(2026, 1, 2)})
    assert patch is not None
    assert patch.apply(text) == (
        '\ufeff---\r\nmnemo-related:\r\n  - "[[A]]"\r\nmnemo-updated: 2026-01-02\r\n---\r\n'
        "# Title\r\n\r\nBody with --- and mnemo: inside\r\n"
    )


def test_a_note_is_read_the_way_obsidian_reads_properties() -> None:
    """Obsidian's Properties view shows top-level keys only: a list of "[[...]]" strings is a list of
    links (graph view, backlinks), an unquoted YYYY-MM-DD a date. A nested mapping it cannot show."""
    note = "---\ntags: [a]\nmnemo:\n  related:\n    - \"[[Old]]\"\n  consolidated: \"2026-01-01\"\n---\nbody\n"
    value = {"related": ["[[Alice Chen]]", "[[Project Heron]]"], "mentions": ["Bob"], "summary": "A note.",
             "updated": dt.date(2026, 11, 22)}
    written = frontmatter_patch(note, KEY, value).apply(note)
    raw = yaml.safe_load(written.split("---\n")[1])
    assert not any(isinstance(v, dict) for v in raw.values())
    assert raw["mnemo-related"] == ["[[Alice Chen]]", "[[Project Heron]]"]
    links = [m for v in raw.values() if isinstance(v, list) for m in v if re.fullmatch(r"\[\[[^\[\]]+\]\]", str(m))]
    assert links == ["[[Alice Chen]]", "[[Project Heron]]"]
    assert raw["mnemo-updated"] == dt.date(2026, 11, 22)
    assert raw["mnemo-mentions"] == ["Bob"] and raw["mnemo-summary"] == "A note."
    assert list(raw) == ["tags", "mnemo-related", "mnemo-mentions", "mnemo-summary", "mnemo-updated"]
    assert written.endswith("---\nbody\n") and written.startswith("---\ntags: [a]\nmnemo-related:\n")


def test_only_the_date_changing_writes_nothing() -> None:
    value: dict[str, Value] = {"related": ["[[A]]"], "updated": dt.date(2026, 1, 1)}
    text = frontmatter_patch("x\n", KEY, value).apply("x\n")
    assert frontmatter_patch(text, KEY, {**value, "updated": dt.date(2026, 2, 2)}) is None
    changed = frontmatter_patch(text, KEY, {"related": ["[[B]]"], "updated": dt.date(2026, 2, 2)})
    assert changed is not None and '"[[B]]"' in changed.new and "2026-02-02" in changed.new


@pytest.mark.parametrize("text, reason", [
    ("---\na: [1,\n---\nbody\n", "invalid YAML"),
    ("---\na: 1\nbody without end\n", "never closed"),
    ("---\nmnemo-related: 1\nmnemo-related: 2\n---\n", "more than once"),
    ("---\nmnemo-related: 1\ntitle: x\nmnemo-updated: 2\n---\n", "not on consecutive lines"),
    ("---\n? mnemo-related\n: 1\n---\n", "cannot be patched safely"),
    ("---\n- a\n- b\n---\n", "not a mapping"),
    ("---\n  a: 1\n  b: 2\n---\n", "does not give back|invalid YAML"),
])
def test_notes_that_cannot_be_patched_safely_are_refused(text: str, reason: str) -> None:
    with pytest.raises(WritebackRefused, match=reason):
        frontmatter_patch(text, KEY, {"related": ["x"], "updated": dt.date(2026, 1, 1)})


@pytest.mark.parametrize("flag", ["false", "no", "off", "False"])
def test_mnemo_false_opts_the_note_out(flag: str) -> None:
    with pytest.raises(OptedOut):
        frontmatter_patch(f"---\ntitle: x\nmnemo: {flag}\n---\nbody\n", KEY, {"updated": dt.date(2026, 1, 1)})


def test_fingerprint_text_ignores_only_the_mnemo_lines() -> None:
    note = "---\ntitle: A\n---\nbody\n"
    value = {"related": ["[[x]]"], "updated": dt.date(2026, 1, 1)}
    written = frontmatter_patch(note, KEY, value).apply(note)
    assert without_block(written, KEY) == note
    bare = "just a body\n"
    assert without_block(frontmatter_patch(bare, KEY, value).apply(bare), KEY) == bare
    assert without_block(written.replace("body", "edited"), KEY) != note


def test_a_count_is_written_as_a_number_obsidian_shows_as_one() -> None:
    value = {"mentioned-in": ["[[2026-11-20]]"], "mentioned-count": 3, "updated": dt.date(2026, 11, 22)}
    patch = frontmatter_patch("# Note\n", "mnemo", value)
    assert patch is not None
    assert patch.apply("# Note\n") == (
        '---\nmnemo-mentioned-in:\n  - "[[2026-11-20]]"\nmnemo-mentioned-count: 3\nmnemo-updated: 2026-11-22\n---\n# Note\n'
    )
