"""One job run in a fresh process, the way Dagster's run launcher starts each run: import the
definitions, run the job for the bench namespace on an instance kept on disk, print JSON with
the time to import, the job's wall and CPU time, the per-step times and the whole process's time.

Usage: .venv/bin/python -m benchmarks.launched CONFIG JOB INSTANCE_DIR

With `MNEMO_BENCH_REPLAY_REPORT` naming a pickled `SleepReport`, the sleep job's consolidation is
replaced by that report (the job with nothing to consolidate: see `sleep_bench.floor`).
"""

import time

START = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

CONFIG_ENV = "MNEMO_BENCH_LAUNCH_CONFIG"
JOB_ENV = "MNEMO_BENCH_LAUNCH_JOB"
REPLAY_ENV = "MNEMO_BENCH_REPLAY_REPORT"


def job():  # noqa: ANN201 - the reconstructable target, found again by name in the run's process
    from mnemo_dagster.definitions import build_defs
    from mnemo_dagster.resources import default_resources

    return build_defs(default_resources(os.environ[CONFIG_ENV])).resolve_job_def(os.environ[JOB_ENV])


def main() -> None:
    config, job_name, instance_dir = sys.argv[1:4]
    os.environ[CONFIG_ENV] = str(Path(config).resolve())
    os.environ[JOB_ENV] = job_name
    import dagster as dg

    import mnemo_dagster.definitions  # noqa: F401 - what a launched run imports first
    import mnemo_dagster.resources  # noqa: F401
    from benchmarks.measure import NAMESPACE, step_times

    imported = time.perf_counter() - START
    if os.environ.get(REPLAY_ENV):
        from benchmarks.sleep_bench import replaying

        replaying(Path(os.environ[REPLAY_ENV]))
    Path(instance_dir).mkdir(parents=True, exist_ok=True)
    instance = dg.DagsterInstance.local_temp(tempdir=instance_dir)
    if NAMESPACE not in instance.get_dynamic_partitions("namespace"):
        instance.add_dynamic_partitions("namespace", [NAMESPACE])
    start, cpu = time.perf_counter(), time.process_time()
    with dg.execute_job(dg.reconstructable(job), instance=instance, tags={"dagster/partition": NAMESPACE}) as result:
        job_s, job_cpu_s = time.perf_counter() - start, time.process_time() - cpu
        if not result.success:
            raise SystemExit(f"the launched {job_name} failed; see the Dagster output above")
        steps = step_times(instance, result.run_id)
    print(json.dumps({"import_s": imported, "job_s": job_s, "job_cpu_s": job_cpu_s, "steps_s": steps,
                      "process_s": time.perf_counter() - START}))


if __name__ == "__main__":
    main()
