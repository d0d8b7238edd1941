"""A chat-export zip is bounded by the bytes its members really unpack to, not by what its
header claims: a member that inflates past its stated size is refused while it is inflated,
with memory bounded by a block, and the error says so."""

import io
import struct
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from mnemo.config import SourceConfig
from mnemo.errors import SourceError
from mnemo.sources.chats import zip_members
from mnemo.sources.scan import scan_namespace

INFLATED = 64 * 1024 * 1024
CLAIMED = 1000


def lying_zip(claimed: int = CLAIMED) -> bytes:
    """A zip whose conversations.json inflates to 64 MB while both of its headers say `claimed` bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("conversations.json", b"[" + b" " * (INFLATED - 2) + b"]")
    data = bytearray(buffer.getvalue())
    local = data.find(b"PK\x03\x04")
    central = data.find(b"PK\x01\x02")
    assert struct.unpack_from("<I", data, local + 22)[0] == INFLATED == struct.unpack_from("<I", data, central + 24)[0]
    struct.pack_into("<I", data, local + 22, claimed)
    struct.pack_into("<I", data, central + 24, claimed)
    return bytes(data)


def test_a_zip_whose_header_understates_its_size_is_refused_while_inflating() -> None:
    data = lying_zip()
    assert len(data) < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(SourceError) as refused:
            zip_members(data, "export.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < INFLATED // 8, f"{peak} bytes held while refusing a member that inflates to {INFLATED}"
    assert "conversations.json does not unpack to the 1000 bytes the archive's header gives" in str(refused.value)


def test_an_honest_zip_still_unpacks() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a/conversations.json", b"[]" + b" " * 3_000_000)
    [(name, raw)] = zip_members(buffer.getvalue(), "export.zip")
    assert name == "export.zip!a/conversations.json" and len(raw) == 3_000_002


def test_an_inbox_zip_that_lies_is_a_named_problem_and_the_scan_goes_on(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "export.zip").write_bytes(lying_zip())
    (inbox / "note.md").write_text("# Kept\nThe rest is read.\n", encoding="utf-8")
    result = scan_namespace("t", (SourceConfig(kind="inbox", path=inbox),), [], [])
    assert [d.path for d in result.documents] == ["note.md"]
    [problem] = result.problems
    assert problem.path == "export.zip" and "header" in problem.reason and problem.fatal
