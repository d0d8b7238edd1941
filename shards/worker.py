"""What a shard's Celery worker imports before its pool starts (`celery -A dagster_celery.app worker
... -I shards.worker`), so that no run pays for it: the pipeline (`definitions`), the instance's
pooled storage, LanceDB and the configured graph engine, which mnemo otherwise imports only in
the runs that use them (about 0.6 s of a worker's first run of 1.7 s,
benchmarks/results/shards-2026-11-28.md).

The pool's process is forked from the worker's after this import. LanceDB restarts its background
runtime in a forked child and warns that a fork in the middle of one of its operations could
deadlock; the worker's own process never opens a table (runs execute in the pool's process), so
none is ever in progress when it forks."""

import mnemo_dagster.definitions  # noqa: F401  # the code location, as the run's job is loaded from it
import mnemo_dagster.shards.storage  # noqa: F401  # deploy/dagster.yaml's storage
from mnemo.config import load_config
from mnemo.errors import ConfigError
from mnemo.stores.graph_engine import DEFAULT_ENGINE, engine_module
from mnemo.stores.vectors import import_lancedb


def _configured_engine() -> str:
    """mnemo.yaml's graph engine; the default one while the file is absent or invalid (the run
    that needs it then says why)."""
    try:
        return load_config().graph.engine
    except ConfigError:
        return DEFAULT_ENGINE


import_lancedb()
engine_module(_configured_engine())
