"""What `mnemo up` shows of Dagster's logs: a line per run started and finished and per sensor
request, warnings and errors with their tracebacks, no colour codes; `--verbose` shows it all."""

from mnemo.cli.up_log import UpLog

RUN = "2fec7937-b4d8-48a2-bc2d-473474d16520"
AT = "2026-11-29 00:52:14 +0000"
DAEMON = [
    f"{AT} - dagster.daemon.SensorDaemon - INFO - Checking for new runs for sensor: file_drop_sensor",
    f"{AT} - dagster.daemon.SensorDaemon - INFO - Sensor file_drop_sensor skipped: no watched file changed",
    f"{AT} - dagster - INFO - __repository__ - file_drop_sensor - me: 1 new",
    f"{AT} - dagster.daemon.SensorDaemon - INFO - Creating new run for file_drop_sensor",
    f"{AT} - dagster.daemon.SensorDaemon - INFO - Launching run for file_drop_sensor",
    f"{AT} - dagster.daemon.SensorDaemon - INFO - Completed launch of run {RUN} for file_drop_sensor",
    f"{AT} - dagster.daemon.QueuedRunCoordinatorDaemon - INFO - Launched 1 runs.",
]
RUN_LINES = [
    f'\x1b[32m{AT}\x1b[0m - dagster - \x1b[34mDEBUG\x1b[0m - ingest_job - {RUN} - 21583 - RUN_START - Started execution of run for "ingest_job".',
    f'{AT} - dagster - DEBUG - ingest_job - {RUN} - 21583 - documents - STEP_START - Started execution of step "documents".',
    f"2026-11-29 00:52:20 +0000 - dagster - WARNING - ingest_job - {RUN} - documents - Journal/x.md: empty file",
    f'2026-11-29 00:53:01 +0000 - dagster - DEBUG - ingest_job - {RUN} - 21583 - RUN_SUCCESS - Finished execution of run for "ingest_job".',
]


def _shown(lines: list[str], verbose: bool = False) -> list[str]:
    log = UpLog(verbose)
    return [said for line in lines if (said := log(line + "\n")) is not None]


def test_at_rest_the_sensors_checks_say_nothing() -> None:
    assert _shown(DAEMON[:2] * 30) == []


def test_a_sensor_request_and_its_run_are_a_line_each() -> None:
    assert _shown(DAEMON + RUN_LINES) == [
        "2026-11-29 00:52:14 file_drop_sensor: me: 1 new",
        f"2026-11-29 00:52:14 file_drop_sensor requested run {RUN[:8]}",
        f"2026-11-29 00:52:14 run {RUN[:8]} of ingest_job started",
        f"2026-11-29 00:52:20 +0000 - dagster - WARNING - ingest_job - {RUN} - documents - Journal/x.md: empty file",
        f"2026-11-29 00:53:01 run {RUN[:8]} of ingest_job succeeded in 47 s",
    ]


def test_an_error_keeps_its_traceback_and_a_failed_run_says_so() -> None:
    lines = [
        f"{AT} - dagster.daemon.SensorDaemon - ERROR - Sensor file_drop_sensor failed",
        "Traceback (most recent call last):",
        '  File "sensors/file_drop.py", line 30, in file_drop_sensor',
        f"{AT} - dagster.daemon.SensorDaemon - INFO - Checking for new runs for sensor: memory_inbox_sensor",
        "a line of the info record above",
        f"{AT} - dagster - ERROR - ingest_job - {RUN} - 21583 - RUN_FAILURE - Execution of run for \"ingest_job\" failed.",
    ]
    assert _shown(lines) == [*(line for line in lines[:3]), f"2026-11-29 00:52:14 run {RUN[:8]} of ingest_job FAILED (see the run in the UI)"]


def test_verbose_shows_every_line_without_colour_codes() -> None:
    shown = _shown(DAEMON + RUN_LINES, verbose=True)
    assert len(shown) == len(DAEMON + RUN_LINES) and not any("\x1b" in line for line in shown)


def test_a_run_shows_its_first_warnings_and_counts_the_rest() -> None:
    skipped = [f"{AT} - dagster - ERROR - ingest_job - {RUN} - documents - journals/2020_05_{n}.org: skipped"
               for n in range(10, 30)]
    shown = _shown([RUN_LINES[0], *skipped, RUN_LINES[-1]])
    assert shown[1:4] == skipped[:3] and len(shown) == 5
    assert shown[-1] == f"2026-11-29 00:53:01 run {RUN[:8]} of ingest_job succeeded in 47 s; 17 more warnings and errors in the UI"
