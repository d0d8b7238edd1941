"""Frontmatter patching: only the mnemo key's lines change, on any note Hypothesis can think of."""

import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mnemo.errors import WritebackRefused
from mnemo.patch_frontmatter import (
    OptedOut, frontmatter_patch, quote, render_block, same_insight, without_block,
)
from mnemo.sources.markdown import split_frontmatter

KEY = "mnemo"
PROPERTY_SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

printable = st.characters(categories=["L", "N", "P", "S", "Zs"], exclude_characters="\x85\u2028\u2029\ufeff")
words = st.text(st.sampled_from(string.ascii_letters + "éøßжλ中文"), min_size=1, max_size=8)
plain = st.lists(words, min_size=1, max_size=3).map(" ".join)
anything = st.text(st.characters(codec="utf-8"), max_size=30)  # what a UTF-8 file can hold: no lone surrogates
keys = st.text(st.sampled_from(string.ascii_lowercase + "_-"), min_size=1, max_size=10).filter(
    lambda k: k[0] not in "-_" and k != KEY and k not in {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}
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
    """An existing mnemo block: mnemo's own earlier output, or one a person wrote by hand."""
    form = draw(st.sampled_from(["ours", "flow", "quoted", "compact", "scalar"]))
    if form == "ours":
        return render_block(KEY, draw(insights()), nl)
    if form == "flow":
        return f"{KEY}: {{about: [a, b], n: 1}}{nl}"
    if form == "quoted":
        return f'"{KEY}":{nl}  about:{nl}    - x{nl}'
    if form == "compact":
        return f"{KEY}:{nl}- one{nl}- two{nl}"
    return f"{KEY}: some text{nl}"


@st.composite
def insights(draw: st.DrawFn) -> dict[str, object]:
    value: dict[str, object] = {}
    if draw(st.booleans()):
        value["about"] = draw(st.lists(anything, min_size=1, max_size=3))
    if draw(st.booleans()):
        value["related"] = [f"[[{t}]]" for t in draw(st.lists(anything, min_size=1, max_size=3))]
    if draw(st.booleans()):
        value["summary"] = draw(st.text(st.characters(codec="utf-8"), max_size=60))
    if draw(st.booleans()):
        value["salience"] = draw(st.floats(0, 1, allow_nan=False)).__round__(3)
    value["consolidated"] = draw(st.dates().map(lambda d: d.isoformat()))
    return value


@st.composite
def notes(draw: st.DrawFn) -> tuple[str, str, dict[str, object]]:
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


@PROPERTY_SETTINGS
@given(notes())
def test_only_the_mnemo_lines_change(case: tuple[str, str, dict[str, object]]) -> None:
    text, expected, value = case
    assert split_frontmatter(text.removeprefix("\ufeff")).problem is None
    patch = frontmatter_patch(text, KEY, value)
    if patch is None:
        assert same_insight(split_frontmatter(text.removeprefix("\ufeff")).properties[KEY], value)
        return
    patched = patch.apply(text)
    assert patched == expected
    old_props = split_frontmatter(text.removeprefix("\ufeff")).properties
    new_props = split_frontmatter(patched.removeprefix("\ufeff")).properties
    assert new_props[KEY] == value
    assert [(k, v) for k, v in new_props.items() if k != KEY] == [(k, v) for k, v in old_props.items() if k != KEY]


@PROPERTY_SETTINGS
@given(notes(), st.dates())
def test_twice_is_once_and_undo_restores(case: tuple[str, str, dict[str, object]], other_day: object) -> None:
    """Applying twice equals applying once (even on another day); the inverse restores the bytes."""
    text, _, value = case
    patch = frontmatter_patch(text, KEY, value)
    if patch is None:
        return
    patched = patch.apply(text)
    assert frontmatter_patch(patched, KEY, value) is None
    assert frontmatter_patch(patched, KEY, {**value, "consolidated": str(other_day)}) is None
    assert patch.inverse().apply(patched) == text
    assert without_block(patched, KEY) == without_block(text, KEY)


@PROPERTY_SETTINGS
@given(st.text())
def test_quoted_strings_read_back_exactly(text: str) -> None:
    props = split_frontmatter(f"---\nk: {quote(text)}\n---\n").properties
    assert props == {"k": text}


def test_a_note_without_frontmatter_gets_one_and_keeps_its_body() -> None:
    text = "\ufeff# Title\r\n\r\nBody with --- and mnemo: inside\r\n"
    patch = frontmatter_patch(text, KEY, {"about": ["person_id:a"], "consolidated": "2026-01-02"})
    assert patch is not None
    assert patch.apply(text) == (
        '\ufeff---\r\nmnemo:\r\n  about:\r\n    - "person_id:a"\r\n  consolidated: "2026-01-02"\r\n---\r\n'
        "# Title\r\n\r\nBody with --- and mnemo: inside\r\n"
    )


def test_only_the_date_changing_writes_nothing() -> None:
    value = {"related": ["[[A]]"], "consolidated": "2026-01-01"}
    text = frontmatter_patch("x\n", KEY, value).apply("x\n")
    assert frontmatter_patch(text, KEY, {**value, "consolidated": "2026-02-02"}) is None
    changed = frontmatter_patch(text, KEY, {"related": ["[[B]]"], "consolidated": "2026-02-02"})
    assert changed is not None and '"[[B]]"' in changed.new and "2026-02-02" in changed.new


@pytest.mark.parametrize("text, reason", [
    ("---\na: [1,\n---\nbody\n", "invalid YAML"),
    ("---\na: 1\nbody without end\n", "never closed"),
    ("---\nmnemo: 1\nmnemo: 2\n---\n", "appears 2 times"),
    ("---\n? mnemo\n: 1\n---\n", "cannot be patched safely"),
    ("---\n- a\n- b\n---\n", "not a mapping"),
    ("---\n  a: 1\n  b: 2\n---\n", "does not give back|invalid YAML"),
])
def test_notes_that_cannot_be_patched_safely_are_refused(text: str, reason: str) -> None:
    with pytest.raises(WritebackRefused, match=reason):
        frontmatter_patch(text, KEY, {"about": ["x"], "consolidated": "2026-01-01"})


@pytest.mark.parametrize("flag", ["false", "no", "off", "False"])
def test_mnemo_false_opts_the_note_out(flag: str) -> None:
    with pytest.raises(OptedOut):
        frontmatter_patch(f"---\ntitle: x\nmnemo: {flag}\n---\nbody\n", KEY, {"consolidated": "2026-01-01"})


def test_fingerprint_text_ignores_only_the_mnemo_block() -> None:
    note = "---\ntitle: A\n---\nbody\n"
    value = {"about": ["x"], "consolidated": "2026-01-01"}
    written = frontmatter_patch(note, KEY, value).apply(note)
    assert without_block(written, KEY) == note
    bare = "just a body\n"
    assert without_block(frontmatter_patch(bare, KEY, value).apply(bare), KEY) == bare
    assert without_block(written.replace("body", "edited"), KEY) != note
