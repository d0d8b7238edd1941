"""Sleep with a model fails closed (loopback stub): when the model answers badly or not at all, every
abstractive month summary, community report and concept already on disk stays as it was, the run
says what it kept, and the next run with a working model writes the rest."""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mnemo.config import LLMConfig, SleepConfig
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.consolidate import SleepReport, consolidate
from mnemo.sleep.store import SleepFiles
from mnemo.sleep.text import Sentence
from tests.sleep.month_fixtures import TEAM, TEAM_LATE_DAY, write_vault
from tests.sleep.test_sleep_llm import answers
from tests.support import Workspace, make_workspace
from tests.support.llm_stub import Reply, StubLLM

NOW = datetime(2026, 11, 21, 3, tzinfo=UTC)
SETTINGS = SleepConfig(month_after_days=14)  # September 2026 is summarized by NOW
FAULTS: dict[str, Reply] = {
    "malformed": Reply(text="Here is a summary: the garden."),
    "empty": Reply(arguments={"summary": "", "citations": []}),
    "placeholder": Reply(arguments={"summary": "0", "citations": [0]}),  # Gemma 3 270M's answer through llama.cpp
    "truncated": Reply(text='{"summary": "In short: the gar'),
    "slow": Reply(arguments={"summary": "Too late.", "citations": [0]}, delay=3),
    "server error": Reply(status=500),
}


def _sleep(workspace: Workspace, url: str, timeout: float = 5) -> tuple[SleepReport, SleepWriter]:
    settings = LLMConfig(base_url=url, model="stub-model", timeout=timeout, transient_retries=0, retry_wait=0,
                         max_retries=1)
    writer = SleepWriter(settings, "")
    report = consolidate(workspace.files(), workspace.graph(), SETTINGS, NOW, writer=writer,
                         steps=("communities", "summaries"))
    return report, writer


def _on_disk(workspace: Workspace) -> dict[str, Any]:
    sleep = SleepFiles(workspace.files().root)
    return {
        "month": sleep.read_overlay("summaries").nodes["Summary"]["summary_month_2026-09"],
        "communities": {i: r["summary"] for i, r in sleep.read_overlay("communities").nodes["Community"].items()},
        "concepts": sorted(sleep.read_overlay("abstractions").nodes.get("Entity", {})),
    }


@pytest.fixture
def written(tmp_path: Path) -> Workspace:
    """A small vault slept once with a working model; then a day added to September 2026."""
    vault = tmp_path / "vault"
    write_vault(vault, TEAM)
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    with StubLLM(responder=answers) as model:
        report, _ = _sleep(workspace, model.url)
    assert report.summaries is not None and report.summaries.written >= 1
    write_vault(vault, dict([TEAM_LATE_DAY]))
    workspace.ingest()
    return workspace


def _faulty_sleep(workspace: Workspace, fault: str) -> tuple[SleepReport, SleepWriter]:
    if fault == "server gone":
        with StubLLM() as gone:
            url = gone.url
        return _sleep(workspace, url)
    with StubLLM(responder=lambda request: FAULTS[fault]) as broken:
        return _sleep(workspace, broken.url, timeout=1)


@pytest.mark.slow
def test_a_failing_model_leaves_what_was_written_and_the_next_run_finishes(written: Workspace) -> None:
    before = _on_disk(written)
    assert before["month"]["text"].startswith("In short:") and before["concepts"]
    for fault in [*FAULTS, "server gone"]:
        report, writer = _faulty_sleep(written, fault)
        after = _on_disk(written)
        assert after["month"] == before["month"], fault
        assert report.summaries is not None and report.summaries.kept >= 1 and report.summaries.written == 0, fault
        assert report.communities is not None and report.communities.summarized == 0, fault
        assert after["communities"] == before["communities"] and after["concepts"] == before["concepts"], fault
        if fault in ("slow", "server gone"):  # unreachable: asked once, then nothing more this run
            assert writer.stats.requests == 1 and writer.stats.skipped >= 1, fault

    with StubLLM(responder=answers) as model:
        report, _ = _sleep(written, model.url)
    assert report.summaries is not None and report.summaries.kept == 0 and report.summaries.written >= 1
    finished = _on_disk(written)["month"]
    assert finished["digest"] != before["month"]["digest"] and finished["text"].startswith("In short:")


def test_a_written_sentence_naming_an_entity_its_sources_do_not_is_flagged() -> None:
    with StubLLM(script=[Reply(arguments={"summary": "Alice Chen planted beds. Bob Martins paid.", "citations": [0]})]) as stub:
        writer = SleepWriter(LLMConfig(base_url=stub.url, model="stub-model", max_retries=0), "")
        written = writer.summary("the garden", [Sentence("Alice Chen planted three beds.", "c1", 1.0)],
                                 ["Alice Chen", "Bob Martins", "Porto"])
    assert written == ("Alice Chen planted beds. Bob Martins paid.", ["c1"])
    assert writer.stats.flagged == [{"topic": "the garden", "sentence": "Bob Martins paid.", "names": ["Bob Martins"]}]
