"""Prose and chunking take shortcuts (block-only parsing, no parse without code); they must
agree with a full Markdown parse."""

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import mnemo.documents as documents
from mnemo.sources.markdown import _INLINE_CODE, prose

FULL = MarkdownIt("commonmark")
PIECES = ["# Title", "## Sub *em*", "text with `code` and [[Link]]", "```", "~~~", "    indented code", "- item",
          "  - nested `x`", "> quote", "1. one", "", "#tag **bold**", "<div>", "| a | b |", "\t tab", "***", "[x]: /u",
          "  \tcode?", "   ~~~", "text\r    code after CR", "-   item\n\n    continued", "a ``b`` c"]
bodies = st.lists(st.sampled_from(PIECES), max_size=25).map("\n".join)


def reference_prose(body: str) -> str:
    """prose() as a full parse computes it, with no shortcut."""
    lines = body.splitlines()
    for token in FULL.parse(body):
        if token.type in ("fence", "code_block") and token.map:
            for i in range(token.map[0], min(token.map[1], len(lines))):
                lines[i] = ""
    return _INLINE_CODE.sub(" ", "\n".join(lines))


@settings(max_examples=200, deadline=None)
@given(bodies)
def test_prose_equals_a_full_parse(body: str) -> None:
    assert prose(body) == reference_prose(body)


@settings(max_examples=100, deadline=None)
@given(bodies)
def test_block_only_sections_equal_a_full_parse(body: str) -> None:
    fast = documents._sections(body)
    saved = documents._MD
    documents._MD = FULL
    try:
        reference = documents._sections(body)
    finally:
        documents._MD = saved
    assert fast == reference
