"""What `mnemo up` prints of its children's logs. By default, one line per run started and
finished and per run a sensor requested, what the sensors themselves log, and every warning or
error (with the lines that follow it, such as a traceback); `--verbose` passes every line on.
Colour codes are never passed on. The lines read are Dagster's log format: `<date> <time> <zone>
- <logger> - <LEVEL> - <message>`, a run's events being `<job> - <run id> - <pid> - [<step> -
]<EVENT_TYPE> - <text>`."""

import re
from dataclasses import dataclass, field
from datetime import datetime

COLOUR = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
RECORD = re.compile(
    r"^(?P<at>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (?:[+-]\d{4} )?- (?P<logger>\S+) - (?P<level>[A-Z]+) - (?P<message>.*)$"
)
RUN_EVENT = re.compile(
    r"^(?P<job>\S+) - (?P<run>[0-9a-f-]{36}) - (?:\S+ - )*?(?P<event>RUN_START|RUN_SUCCESS|RUN_FAILURE) - "
)
SENSOR_SAYS = re.compile(r"^__repository__ - (?P<sensor>\S+) - (?P<message>.*)$")  # a sensor's own log line
SENSOR_RUN = re.compile(r"^Completed launch of run (?P<run>[0-9a-f-]{36}) for (?P<sensor>\S+)$")
SHOWN_LEVELS = {"WARNING", "ERROR", "CRITICAL"}
RUN_RECORD = re.compile(r"^\S+ - (?P<run>[0-9a-f-]{36}) - ")  # a record a run logged
SHOWN_PER_RUN = 3  # of a run's warnings and errors (skipped files, say); the run's end counts the rest


def plain(line: str) -> str:
    """The line without terminal colour codes."""
    return COLOUR.sub("", line)


@dataclass
class UpLog:
    """Turns the children's output, a line at a time, into what `mnemo up` shows (None: nothing)."""

    verbose: bool = False
    started: dict[str, datetime] = field(default_factory=dict)  # run id -> when it started
    showing: bool = True  # whether the record the next unheaded line belongs to is shown
    warned: dict[str, int] = field(default_factory=dict)  # run id -> its warnings and errors so far

    def __call__(self, line: str) -> str | None:
        line = plain(line.rstrip("\n"))
        if self.verbose:
            return line
        record = RECORD.match(line)
        if record is None:
            return line if self.showing and line.strip() else None
        said = self._summary(record["at"], record["message"])
        self.showing = said is None and record["level"] in SHOWN_LEVELS and self._within_limit(record["message"])
        return said if said is not None else (line if self.showing else None)

    def _within_limit(self, message: str) -> bool:
        """Whether a warning or an error is among the first `SHOWN_PER_RUN` of its run (or no run's)."""
        run = RUN_RECORD.match(message)
        if run is None:
            return True
        self.warned[run["run"]] = self.warned.get(run["run"], 0) + 1
        return self.warned[run["run"]] <= SHOWN_PER_RUN

    def _summary(self, at: str, message: str) -> str | None:
        """One line for a run starting or ending, or a sensor's run request; None for other records."""
        event = RUN_EVENT.match(message)
        if event is not None:
            run, when = event["run"], datetime.strptime(at, "%Y-%m-%d %H:%M:%S")
            if event["event"] == "RUN_START":
                self.started[run] = when
                return f"{at} run {run[:8]} of {event['job']} started"
            since = self.started.pop(run, None)
            took = f" in {(when - since).total_seconds():.0f} s" if since else ""
            verdict = "succeeded" if event["event"] == "RUN_SUCCESS" else "FAILED (see the run in the UI)"
            unshown = self.warned.pop(run, 0) - SHOWN_PER_RUN
            more = f"; {unshown} more warnings and errors in the UI" if unshown > 0 else ""
            return f"{at} run {run[:8]} of {event['job']} {verdict}{took}{more}"
        request = SENSOR_RUN.match(message)
        if request is not None:
            return f"{at} {request['sensor']} requested run {request['run'][:8]}"
        said = SENSOR_SAYS.match(message)  # such as what changed, before the file-drop sensor's request
        return f"{at} {said['sensor']}: {said['message']}" if said is not None else None
