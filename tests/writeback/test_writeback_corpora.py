"""Full write-back on copies of the real vaults, after sleep mode: only the mnemo-* properties differ and
new files appear only in mnemo's own folder, every link written (day links included, in notes and
generated pages) resolves, at least 80 % of the related links are new to their note, undo gives back
every byte, a second run writes nothing."""

from pathlib import Path

import pytest

from benchmarks.writeback import measure
from tests.support import corpus


@pytest.mark.parametrize("name, kind, least", [
    ("obsidian-kepano", "obsidian", 25), ("obsidian-ideaverse", "obsidian", 10), ("logseq-docs", "logseq", 150),
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
    assert figures["added_outside_folder"] == [] and figures["community_pages"] >= 3
    assert figures["related_links"] > 0 and figures["related_new_share"] >= 0.8
