"""Prose and chunking parse block structure only; they must agree with a full Markdown parse."""

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import mnemo.documents as documents
import mnemo.sources.markdown as markdown

PIECES = ["# Title", "## Sub *em*", "text with `code` and [[Link]]", "```", "~~~", "    indented code", "- item",
          "  - nested `x`", "> quote", "1. one", "", "#tag **bold**", "<div>", "| a | b |", "\t tab", "***", "[x]: /u"]
bodies = st.lists(st.sampled_from(PIECES), max_size=25).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(bodies)
def test_block_only_parse_gives_the_same_prose_and_sections(body: str) -> None:
    fast = (markdown.prose(body), documents._sections(body))
    full = MarkdownIt("commonmark")
    saved = markdown._MD, documents._MD
    markdown._MD = documents._MD = full
    try:
        reference = (markdown.prose(body), documents._sections(body))
    finally:
        markdown._MD, documents._MD = saved
    assert fast == reference
