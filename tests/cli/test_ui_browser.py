"""What a person does in the Dagster UI that `mnemo up` serves, in headless Chromium (Debian's
`chromium`, driven by Playwright): the asset lineage shows the three groups, an asset shows its
counts and preview table, the schedule and sensors are listed, and the ingest job launched from the
UI for a namespace's partition succeeds. Screenshots go to $MNEMO_TEST_ARTIFACTS (default
build/ui-screenshots)."""

import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

import dagster as dg
import pytest
from typer.testing import CliRunner

from mnemo.cli.main import app
from tests.cli.test_up_cli import _free_port, _stop, _up, _wait_for_ui, config  # noqa: F401 - the fixture
from tests.support import REPO

if TYPE_CHECKING:
    from playwright.sync_api import Page

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(os.environ.get("MNEMO_TEST_ARTIFACTS", REPO / "build" / "ui-screenshots"))
RUN_SECONDS = 300
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium executable (apt-get install chromium)")


def _dismiss_the_welcome_dialog_whenever_it_opens(page: "Page") -> None:
    """Dagster's first-visit newsletter dialog opens a moment after a page has loaded (later on a
    busy machine) and its backdrop takes every click. Playwright looks for it before each action,
    skips it when it is open and waits until it has closed, so no action races its opening."""
    page.add_locator_handler(page.get_by_role("button", name="Skip"), lambda skip: skip.click())


def _pick_partition(page: "Page", partition: str, seconds: float = 180) -> None:
    """Open the partition picker and choose the partition. The welcome dialog can open while the
    picker is open, and skipping it closes the picker too: then the picker is opened again, until
    the partition is chosen or `seconds` have gone."""
    deadline = time.monotonic() + seconds
    while True:
        page.get_by_text("Select a partition or create one").click(timeout=30000)
        try:
            page.get_by_text(partition, exact=True).filter(visible=True).last.click(timeout=10000)
            return
        except sync_api.TimeoutError:
            if time.monotonic() > deadline:
                raise


def _launch_from_ui(page: "Page", base: str, partition: str) -> None:
    page.goto(f"{base}/locations/definitions/jobs/ingest_job")
    page.get_by_role("button", name="Materialize all").first.click(timeout=60000)
    _pick_partition(page, partition)
    page.keyboard.press("Escape")
    page.screenshot(path=ARTIFACTS / "launch-ingest.png")
    page.get_by_role("button", name="Launch 1 run").click(timeout=30000)


def _wait_for_ui_run(home: Path, partition: str, since: float) -> dg.DagsterRun | None:
    deadline = time.monotonic() + RUN_SECONDS
    while time.monotonic() < deadline:
        for record in dg.DagsterInstance.from_config(str(home)).get_run_records():
            run = record.dagster_run
            if record.create_timestamp.timestamp() > since and run.tags.get("dagster/partition") == partition \
                    and run.status in (dg.DagsterRunStatus.SUCCESS, dg.DagsterRunStatus.FAILURE):
                return run
        time.sleep(3)
    return None


def _look_around(page: "Page", base: str) -> None:
    page.goto(f"{base}/asset-groups")
    for group in ("ingest", "sleep_mode", "writeback"):
        page.get_by_text(group, exact=True).first.wait_for(timeout=60000)
    page.screenshot(path=ARTIFACTS / "asset-groups.png")
    page.goto(f"{base}/assets/documents?partition=test")
    for shown in ("Notes and conversations scanned incrementally", "problem_files", "People/Jonas Weber.md",
                  "preview", "doc_"):  # the preview names documents by id
        page.get_by_text(shown).first.wait_for(timeout=60000)
    page.screenshot(path=ARTIFACTS / "documents-metadata.png", full_page=True)
    page.goto(f"{base}/automation")
    for name in ("nightly_sleep_schedule", "file_drop_sensor", "memory_inbox_sensor", "namespaces_sensor"):
        page.get_by_text(name, exact=True).first.wait_for(timeout=60000)
    page.screenshot(path=ARTIFACTS / "automation.png")


def test_a_person_uses_the_ui(config: Path) -> None:  # noqa: F811 - the fixture from test_up_cli
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert CliRunner().invoke(app, ["ingest", "--config", str(config)]).exit_code == 0
    os.environ.pop("DAGSTER_HOME", None)  # `mnemo up` finds the same instance beside the config
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    child = _up(config, port)
    try:
        _wait_for_ui(port, child)
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            _dismiss_the_welcome_dialog_whenever_it_opens(page)
            _look_around(page, base)
            launched = time.time()
            _launch_from_ui(page, base, "test")
            run = _wait_for_ui_run(config.parent / ".dagster", "test", launched)
            if run is not None:
                page.goto(f"{base}/runs")
                page.get_by_text(run.run_id[:8]).first.wait_for(timeout=60000)  # the run is listed
                page.screenshot(path=ARTIFACTS / "runs.png")
            browser.close()
    finally:
        _stop(child, config)
    assert run is not None, f"no run of partition 'test' ended within {RUN_SECONDS} s"
    assert run.status == dg.DagsterRunStatus.SUCCESS and run.job_name == "ingest_job"
