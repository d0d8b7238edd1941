"""Embedding progress told as a log line of the run (so the UI shows it too), at most every few
seconds, and read back from the run's event log by whoever watches the run (`parse_progress`)."""

import re
import time
from collections.abc import Callable

from mnemo.stores.embed_progress import Report

REPORT_SECONDS = 2.0
_MESSAGE = re.compile(r"^passages embedded: (\d+)/(\d+)$")


def progress_message(done: int, total: int) -> str:
    return f"passages embedded: {done}/{total}"


def parse_progress(message: str) -> tuple[int, int] | None:
    """(done, total) of a `progress_message`; None for any other line."""
    found = _MESSAGE.match(message.strip())
    return (int(found[1]), int(found[2])) if found else None


def every_few_seconds(log: Callable[[str], None], seconds: float = REPORT_SECONDS,
                      clock: Callable[[], float] = time.monotonic) -> Report:
    """A `Report` that logs a `progress_message` at the start, at the end and at most every
    `seconds` between; nothing when there is nothing to embed."""
    last = [float("-inf")]

    def report(done: int, total: int) -> None:
        now = clock()
        if total and (done in (0, total) or now - last[0] >= seconds):
            last[0] = now
            log(progress_message(done, total))

    return report
