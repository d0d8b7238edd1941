"""The `since`/`until` bounds every surface accepts (recall and timeline over MCP and HTTP, the
CLI's --since/--until): one check, one message.

Timestamps are compared as ISO strings, so only the extended ISO forms compare correctly: a
year, a year and month, a day, or a day and time (with optional seconds, fraction and zone).
Compact (`20261101`) and week (`2026-W44`) forms are refused, as is `since` after `until`.
`until` holds all of the period it names (`until=2026-11-01` includes that day's times).
"""

import datetime as dt
import re
from typing import overload

from mnemo.errors import InvalidQuery

FORMS = "YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS][+HH:MM]"
_ISO = re.compile(r"\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?")
_LATEST = "~"  # sorts after any character of a timestamp: "2026-11~" is the end of November


def _is_time(value: str) -> bool:
    if not _ISO.fullmatch(value):
        return False
    try:
        if len(value) > 7:
            dt.datetime.fromisoformat(value)
        elif len(value) == 7:
            dt.date.fromisoformat(value + "-01")
    except ValueError:
        return False
    return True


def check_time_bounds(since: str | None, until: str | None, names: tuple[str, str] = ("since", "until")) -> None:
    """Nothing when each bound given is an accepted ISO form and `since` is not after `until`;
    else an InvalidQuery naming the parameter and the accepted forms."""
    for name, value in zip(names, (since, until), strict=True):
        if value is not None and not (isinstance(value, str) and _is_time(value)):
            raise InvalidQuery(f"{name} {value!r} is not a date or time: use {FORMS}")
    if since and until and since > until + _LATEST:
        raise InvalidQuery(f"{names[0]} {since} is after {names[1]} {until}: nothing could match")


@overload
def until_bound(until: str) -> str: ...
@overload
def until_bound(until: None) -> None: ...
def until_bound(until: str | None) -> str | None:
    """The last timestamp `until` holds: all of the year, month, day or minute it names."""
    return None if until is None else until + _LATEST
