"""Full write-back on copies of the real vaults: only the mnemo-* properties differ, every link written
(day links included) resolves, undo gives back every byte, a second run writes nothing."""

from pathlib import Path

import pytest

from benchmarks.writeback import measure
from tests.support import corpus


@pytest.mark.parametrize("name, kind, least", [
    ("obsidian-kepano", "obsidian", 25), ("obsidian-ideaverse", "obsidian", 10), ("logseq-docs", "logseq", 230),
])
def test_full_writeback_on_a_real_vault(tmp_path: Path, name: str, kind: str, least: int) -> None:
    figures = measure(corpus(name), kind, tmp_path)
    print(figures)
    assert figures["written"] >= least
    assert figures["changed_files"] == figures["written"]
    assert figures["outside_bytes"] == 0
    assert figures["unresolved"] == []
    assert figures["second_run_written"] == 0
    assert figures["undo_exact"] is True
    assert figures["day_links_unresolved"] == 0
