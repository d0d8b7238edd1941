"""The instance storage of the many-machine deployment (deploy/dagster.yaml, shards/storage.py) on a
real PostgreSQL: a process writes a run's events over the connections it keeps, and gives them back
when its instance is disposed. Runs only with `-m shards` (`make test-shards`)."""

import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest
import yaml
from sqlalchemy import event
from sqlalchemy.pool import Pool

from tests.support import REPO
from tests.support.services import Postgres, postgres, require_services

pytestmark = [pytest.mark.shards]
psycopg2 = pytest.importorskip("psycopg2", reason="the scale extra is not installed (pip install -e '.[scale]')")


@pytest.fixture(scope="module")
def server() -> Iterator[Postgres]:
    require_services()
    with postgres() as pg:
        yield pg


def deployed_instance(pg: Postgres, home: Path) -> dg.DagsterInstance:
    """An instance with deploy/dagster.yaml's storage, as the daemon, webserver and workers make it."""
    storage = yaml.safe_load((REPO / "deploy" / "dagster.yaml").read_text(encoding="utf-8"))["storage"]
    home.mkdir()
    text = yaml.safe_dump({"storage": storage}).replace("env: MNEMO_POSTGRES_URL", "").replace(
        "postgres_url:\n", f"postgres_url: {pg.url}\n")
    (home / "dagster.yaml").write_text(text, encoding="utf-8")
    return dg.DagsterInstance.from_config(str(home))


def a_runs_writes(instance: dg.DagsterInstance, name: str) -> None:
    """What a worker does to the instance in a run: its record, some sixty events, reads of the run."""
    run = instance.add_run(dg.DagsterRun(job_name="ingest_job", run_id=name, status=dg.DagsterRunStatus.STARTED))
    for i in range(60):
        instance.report_engine_event(f"step {i}", run)
        assert instance.get_run_by_id(run.run_id) is not None
    assert len(instance.all_logs(run.run_id)) == 60


def sessions(pg: Postgres) -> int:
    """Client connections to the server other than this query's own."""
    with psycopg2.connect(pg.url.replace("+psycopg2", "")) as conn, conn.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                       "AND pid <> pg_backend_pid()")
        row = cursor.fetchone()
    conn.close()
    assert row is not None
    return int(row[0])


def test_a_runs_events_are_written_over_the_connections_the_process_keeps(server: Postgres, tmp_path: Path) -> None:
    instance = deployed_instance(server, tmp_path / "home")
    opened = []
    listener = lambda *_: opened.append(1)  # noqa: E731
    event.listen(Pool, "connect", listener)
    try:
        a_runs_writes(instance, "pooled-run")
    finally:
        event.remove(Pool, "connect", listener)
        instance.dispose()
    assert len(opened) <= 2, f"{len(opened)} connections opened for one run's writes"


def test_disposing_the_instance_closes_its_connections(server: Postgres, tmp_path: Path) -> None:
    before = sessions(server)
    instance = deployed_instance(server, tmp_path / "home")
    a_runs_writes(instance, "disposed-run")
    kept = sessions(server)
    assert kept > before, "the instance keeps its connections while it lives"
    instance.optimize_for_webserver(statement_timeout=15000, pool_recycle=3600, max_overflow=20)  # as the webserver
    a_runs_writes(instance, "webserver-run")
    assert sessions(server) == kept, "the pools the webserver's settings replaced are closed"
    instance.dispose()
    deadline = time.monotonic() + 10
    while sessions(server) > before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sessions(server) == before
