"""The run launcher is loaded by the daemon at its first launch: it brings the Celery client and
mnemo's configuration, not the pipeline (the jobs, assets and stores had cost 0.6 s of a 0.7 s
import, paid by the first run after each start of the daemon, and the daemon's memory)."""

import subprocess
import sys

import pytest

from tests.support import REPO

pytestmark = [pytest.mark.shards]  # needs the scale extra, which `make test-shards` installs
PIPELINE = ("mnemo_dagster.jobs", "mnemo_dagster.assets", "mnemo_dagster.resources", "mnemo.ingest", "mnemo.stores", "kuzu", "lancedb")


def test_the_launcher_does_not_import_the_pipeline() -> None:
    pytest.importorskip("dagster_celery", reason="the scale extra is not installed (pip install -e '.[scale]')")
    probe = ("import sys, mnemo_dagster.shards.launcher\n"
             f"print(sorted(m for m in {PIPELINE!r} if m in sys.modules))")
    found = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"
