"""The instance storage of the many-machine deployment: dagster-postgres's, with each process keeping
its connections to PostgreSQL open instead of opening one for every query.

dagster-postgres opens a new connection (a TCP handshake, a forked server process, a login) for
each query of every process but the webserver; a run writes some sixty events, each several
queries, so a run of 300 notes spent more time connecting than working (about 4 s against 2.2 s,
benchmarks/results/shards-2026-11-27.md) and the server's forks took CPU from the workers. Here the
run and event storages hold one connection per process (more while several threads need one at
once, as the webserver does) and close them when the instance is disposed. The schedule storage,
which the daemon alone uses much, is dagster-postgres's own.
"""

from collections.abc import Mapping
from typing import Any

from dagster_postgres import DagsterPostgresStorage, PostgresEventLogStorage, PostgresRunStorage
from dagster_postgres.schedule_storage import PostgresScheduleStorage
from dagster_postgres.utils import pg_url_from_config
from sqlalchemy.engine import Engine

NO_STATEMENT_TIMEOUT = 0  # queries run as long as they need, as with dagster-postgres's own storage
POOL_RECYCLE_SECONDS = 3600  # a connection older than this is replaced before use
MAX_OVERFLOW = 20  # connections beyond the kept one while threads need them at once (the webserver's default)


class KeptConnections:
    """For a dagster-postgres storage: a pool keeping one connection (more while threads need them
    at once) from construction to `dispose()`. The webserver asks again for its own settings
    (`optimize_for_webserver`); the pool it replaces is closed then."""

    _engine: Engine  # where dagster-postgres (pinned) keeps its SQLAlchemy engine

    def keep_connections(self) -> None:
        self.optimize_for_webserver(NO_STATEMENT_TIMEOUT, POOL_RECYCLE_SECONDS, MAX_OVERFLOW)

    def optimize_for_webserver(self, statement_timeout: int, pool_recycle: int, max_overflow: int) -> None:
        replaced = self._engine
        super().optimize_for_webserver(statement_timeout, pool_recycle, max_overflow)  # type: ignore[misc]
        replaced.dispose()

    def dispose(self) -> None:
        super().dispose()  # type: ignore[misc]
        self._engine.dispose()


class PooledRunStorage(KeptConnections, PostgresRunStorage):
    """Run storage that keeps its connection for the life of the instance."""

    def __init__(self, postgres_url: str, should_autocreate_tables: bool = True) -> None:
        super().__init__(postgres_url, should_autocreate_tables)
        self.keep_connections()


class PooledEventLogStorage(KeptConnections, PostgresEventLogStorage):
    """Event log storage that keeps its connection for the life of the instance."""

    def __init__(self, postgres_url: str, should_autocreate_tables: bool = True) -> None:
        super().__init__(postgres_url, should_autocreate_tables)
        self.keep_connections()


class PooledPostgresStorage(DagsterPostgresStorage):
    """`storage: custom:` in deploy/dagster.yaml, with the same `postgres_url` as `storage: postgres:`."""

    def __init__(self, postgres_url: str, should_autocreate_tables: bool = True, inst_data: Any = None) -> None:
        super(DagsterPostgresStorage, self).__init__()  # the parts are made here, not by dagster-postgres
        self.postgres_url, self.should_autocreate_tables, self._inst_data = (
            postgres_url, should_autocreate_tables, inst_data)
        self._run_storage = PooledRunStorage(postgres_url, should_autocreate_tables)
        self._event_log_storage = PooledEventLogStorage(postgres_url, should_autocreate_tables)
        self._schedule_storage = PostgresScheduleStorage(postgres_url, should_autocreate_tables)

    @classmethod
    def from_config_value(cls, inst_data: Any, config_value: Mapping[str, Any]) -> "PooledPostgresStorage":
        return cls(pg_url_from_config(config_value), config_value.get("should_autocreate_tables", True), inst_data)
