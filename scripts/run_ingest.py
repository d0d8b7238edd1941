"""Materialize the ingest job for one namespace in the instance at $DAGSTER_HOME.

Usage: python scripts/run_ingest.py [NAMESPACE]   (default: every namespace in mnemo.yaml)
The runs appear in the Dagster UI (`make ui`) afterwards.
"""

import sys

import dagster as dg

from definitions import defs
from jobs import namespace_tags
from mnemo.config import load_config
from mnemo.errors import MnemoError


def main(argv: list[str]) -> int:
    try:
        wanted = argv[1:] or sorted(load_config().namespaces)
    except MnemoError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    instance = dg.DagsterInstance.get()
    known = set(instance.get_dynamic_partitions("namespace"))
    instance.add_dynamic_partitions("namespace", [ns for ns in wanted if ns not in known])
    job = defs.resolve_job_def("ingest_job")
    for namespace in wanted:
        result = job.execute_in_process(
            partition_key=namespace, instance=instance, tags=namespace_tags(namespace),
            run_config={"loggers": {"console": {"config": {"log_level": "WARNING"}}}},
        )
        for event in result.get_asset_materialization_events():
            materialization = event.step_materialization_data.materialization
            summary = {k: v.value for k, v in materialization.metadata.items() if isinstance(v.value, int)}
            print(f"[{namespace}] {materialization.asset_key.to_user_string()}: {summary}")
        if not result.success:
            print(f"error: the ingest run for {namespace!r} failed", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
