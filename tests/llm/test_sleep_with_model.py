"""Sleep mode through llama.cpp's real server (Gemma 3 270M), and its faults: the server killed
mid-run, a context window too small for the prompt, a 1 s timeout. Whatever the model does, the
summaries and community reports already on disk stay as they were, and the run says what it kept."""

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from mnemo.config import LLMConfig, SleepConfig
from mnemo.sleep.abstractive import SleepWriter
from mnemo.sleep.consolidate import SleepReport, consolidate
from mnemo.sleep.store import SleepFiles
from tests.llm.conftest import LlamaServer
from tests.sleep.month_fixtures import TEAM, TEAM_LATE_DAY, write_vault
from tests.support import Workspace, make_workspace

pytestmark = [pytest.mark.llm, pytest.mark.slow]

NOW = datetime(2026, 11, 21, 3, tzinfo=UTC)
SETTINGS = SleepConfig(month_after_days=14, week_after_days=3650)  # September 2026 as a month, no weeks


@pytest.fixture
def slept(tmp_path: Path) -> Workspace:
    """The vault slept once without a model (extractive rows on disk), then a day added to September."""
    vault = tmp_path / "vault"
    write_vault(vault, TEAM)
    workspace = make_workspace(tmp_path, {"test": [{"kind": "obsidian", "path": str(vault)}]})
    workspace.ingest()
    consolidate(workspace.files(), workspace.graph(), SETTINGS, NOW, steps=("communities", "summaries"))
    write_vault(vault, dict([TEAM_LATE_DAY]))
    workspace.ingest()
    return workspace


def _writer(server: LlamaServer, timeout: float = 900) -> SleepWriter:
    return SleepWriter(LLMConfig(base_url=server.url, model=server.model, timeout=timeout, transient_retries=0,
                                 retry_wait=0, max_retries=1), "")


def _sleep(workspace: Workspace, writer: SleepWriter) -> SleepReport:
    return consolidate(workspace.files(), workspace.graph(), SETTINGS, NOW, writer=writer,
                       steps=("communities", "summaries"))


def _on_disk(workspace: Workspace) -> dict[str, Any]:
    sleep = SleepFiles(workspace.files().root)
    return {"month": sleep.read_overlay("summaries").nodes["Summary"]["summary_month_2026-09"],
            "communities": sleep.read_overlay("communities").nodes.get("Community", {})}


def _kept_everything(workspace: Workspace, before: dict[str, Any], report: SleepReport) -> None:
    after = _on_disk(workspace)
    assert after["month"] == before["month"]
    assert {i: r["summary"] for i, r in after["communities"].items()} == {
        i: r["summary"] for i, r in before["communities"].items()}
    assert report.summaries is not None and report.summaries.kept >= 1 and report.summaries.written == 0


def test_sleep_writes_through_the_server_and_the_server_survives(slept: Workspace, llama_server: LlamaServer) -> None:
    before = _on_disk(slept)
    writer = _writer(llama_server)
    report = _sleep(slept, writer)
    after = _on_disk(slept)
    print("month, extractive:", before["month"]["text"])
    print("month, after:", after["month"]["text"], "| kept" if report.summaries and report.summaries.kept else "")
    for cid, row in after["communities"].items():
        print(f"community {cid}, extractive:", before["communities"].get(cid, {}).get("summary"))
        print(f"community {cid}, after:", row["summary"])
    print(report.summaries, report.communities, writer.stats)
    assert llama_server.process.poll() is None  # a schema's maxLength once became a grammar that crashed it
    assert writer.stats.requests >= 2 and report.summaries is not None
    chunks = {c.id for c in slept.files().read_chunks()}
    assert after["month"]["text"] and set(after["month"]["sources"]) <= chunks


def test_a_server_killed_mid_run_leaves_what_was_on_disk(
    slept: Workspace, llama_at: Callable[[int], LlamaServer],
) -> None:
    doomed = llama_at(2048)
    before = _on_disk(slept)
    writer = _writer(doomed)
    writer.client.on("completion:kwargs", lambda *args, **kwargs: doomed.process.kill())  # killed as it is asked
    report = _sleep(slept, writer)
    _kept_everything(slept, before, report)
    assert writer.stats.requests == 1 and writer.stats.skipped >= 1


def test_a_context_window_too_small_for_the_prompt_keeps_everything(
    slept: Workspace, llama_at: Callable[[int], LlamaServer],
) -> None:
    tiny = llama_at(64)
    before = _on_disk(slept)
    writer = _writer(tiny)
    report = _sleep(slept, writer)
    _kept_everything(slept, before, report)
    assert writer.stats.failures == writer.stats.requests >= 1 and tiny.process.poll() is None


def test_a_one_second_timeout_keeps_everything(slept: Workspace, llama_at: Callable[[int], LlamaServer]) -> None:
    slow = llama_at(2048)  # its own: a timed-out request goes on generating on the server
    before = _on_disk(slept)
    writer = _writer(slow, timeout=1)
    report = _sleep(slept, writer)
    _kept_everything(slept, before, report)
    assert writer.stats.requests == 1 and writer.stats.skipped >= 1
