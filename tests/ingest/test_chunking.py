"""Chunking: heading-aware passages, stable content-addressed ids, prev/next order."""

import re
import time
from hashlib import sha256

from hypothesis import given, settings
from hypothesis import strategies as st

from mnemo.documents import Document, _split_long, chunk_document, content_hash


def doc(body: str, doc_id: str = "doc_1") -> Document:
    return Document(id=doc_id, namespace="t", source="v", path="n.md", title="N", kind="note", body=body, content_hash="h")


BODY = "# Title\nIntro paragraph.\n\n## Plans\nFirst plan.\n\nSecond plan.\n\n## Notes\n- a\n- b\n"


def test_sections_follow_headings() -> None:
    chunks = chunk_document(doc(BODY))
    assert [(c.heading, c.text) for c in chunks] == [
        ("Title", "Intro paragraph."),
        ("Title > Plans", "First plan.\n\nSecond plan."),
        ("Title > Notes", "- a\n- b"),
    ]
    assert [c.position for c in chunks] == [0, 1, 2]
    assert chunks[0].prev_id is None and chunks[0].next_id == chunks[1].id
    assert chunks[2].prev_id == chunks[1].id and chunks[2].next_id is None
    assert chunks[1].context_text.startswith("N > Title > Plans\n")


def test_editing_one_section_changes_only_its_id() -> None:
    before = chunk_document(doc(BODY))
    after = chunk_document(doc(BODY.replace("- b", "- b, changed")))
    assert [c.id for c in before][:2] == [c.id for c in after][:2]
    assert before[2].id != after[2].id


def test_ids_depend_on_document_and_namespace() -> None:
    assert chunk_document(doc(BODY))[0].id != chunk_document(doc(BODY, "doc_2"))[0].id


def test_long_paragraphs_are_split_under_the_limit() -> None:
    long_text = " ".join(f"Sentence number {i} is here." for i in range(200))
    chunks = chunk_document(doc(long_text), max_words=50)
    assert len(chunks) > 10
    assert all(len(c.text.split()) <= 50 for c in chunks)


def test_identical_paragraphs_get_distinct_ids() -> None:
    chunks = chunk_document(doc("# A\nsame\n\n# B\nother\n\n# A\nsame\n"))
    assert len({c.id for c in chunks}) == len(chunks) == 3


markdown = st.lists(
    st.one_of(
        st.from_regex(r"#{1,3} [A-Za-z ]{1,12}", fullmatch=True),
        st.text(alphabet="abcdefghij .,!?\n", min_size=1, max_size=120),
        st.from_regex(r"- [a-z ]{1,20}", fullmatch=True),
    ),
    max_size=12,
).map("\n\n".join)


@settings(max_examples=200)
@given(markdown, st.integers(min_value=20, max_value=200))
def test_chunking_is_deterministic_and_loses_no_words(body: str, max_words: int) -> None:
    first = chunk_document(doc(body), max_words)
    assert [c.id for c in first] == [c.id for c in chunk_document(doc(body), max_words)]
    assert len({c.id for c in first}) == len(first)
    heading_words = {w for line in body.splitlines() if re.match(r"#{1,6} ", line) for w in line.split()}
    body_words = [w for w in body.split() if w not in heading_words]
    chunk_words = " ".join(c.text for c in first).split()
    assert set(body_words) <= set(chunk_words)
    assert all(len(c.text.split()) <= max_words for c in first)


def test_content_hashes_are_the_digest_of_each_part_then_a_separator() -> None:
    """Ids and row hashes are stored: the digest must not change with how it is computed."""
    assert content_hash() == sha256(b"").hexdigest()[:24]
    assert content_hash("a", "b") == sha256(b"a\x1fb\x1f").hexdigest()[:24] == "023b8059a924f728a2155e4c"
    assert content_hash("ab") != content_hash("a", "b")
    assert content_hash("caf\u00e9", "\ud800") == sha256("caf\u00e9\x1f\ud800\x1f".encode("utf-8", "surrogatepass")).hexdigest()[:24]


def test_long_text_is_cut_at_sentences_then_in_windows_of_the_limit() -> None:
    """The boundaries ordinary notes were chunked at (and so their chunk ids) stay as they were."""
    text = "a b. c d e f g h i. j k."
    assert _split_long(text, 3) == ["a b.", "c d e", "f g h", "i. j k."]
    assert _split_long("one two.\nthree", 3) == ["one two.\nthree"]


def _best_chunking_seconds(words: int) -> float:
    body = " ".join(f"word{i}" for i in range(words))  # no sentence end anywhere
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        chunks = chunk_document(doc(body))
        best = min(best, time.perf_counter() - start)
    assert sum(len(c.text.split()) for c in chunks) == words
    return best


def test_chunking_time_grows_linearly_with_text_without_sentence_ends() -> None:
    """Four times the words takes about four times as long (sixteen if it were quadratic)."""
    ratio = _best_chunking_seconds(160_000) / _best_chunking_seconds(40_000)
    assert ratio < 10, f"chunking 4x the words took {ratio:.1f}x as long"
