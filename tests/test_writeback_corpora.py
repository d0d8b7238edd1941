"""Full write-back on copies of the real vaults: only the mnemo blocks differ, links resolve."""

from pathlib import Path

import pytest

from benchmarks.writeback import measure
from conftest import corpus


@pytest.mark.parametrize("name, kind, least", [("obsidian-kepano", "obsidian", 30), ("logseq-docs", "logseq", 230)])
def test_full_writeback_on_a_real_vault(tmp_path: Path, name: str, kind: str, least: int) -> None:
    figures = measure(corpus(name), kind, tmp_path)
    print(figures)
    assert figures["written"] >= least
    assert figures["changed_files"] == figures["written"]
    assert figures["outside_bytes"] == 0
    assert figures["unresolved"] == []
    assert figures["second_run_written"] == 0
