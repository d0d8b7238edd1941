"""The access log as salience reads it: folded, so a run reads only what was appended since the
last one instead of the whole history.

Every recall appends its items to `sleep/access.jsonl` (about 15 a recall), so the log grows by
hundreds of thousands of lines a year, and replaying all of it every night made salience cost
grow with the history rather than with what changed. The log itself is never rewritten (other
processes append to it at any time); the salience state keeps a fold of it instead:

- `offset`: the bytes of the log read so far (whole lines only), and a digest of the bytes just
  before it, which tells that the log is still the file that was read;
- `until`: the run time the fold is at; every access read with a time up to it is applied;
- `items`: per item, its first-seen stamp, the count of its accesses up to `until`, and the
  strength S and last reinforcement after replaying them (`salience.strength`, same order and
  arithmetic, so continuing the replay gives the same numbers as replaying from the start);
- `pending`: accesses read but stamped after `until` (applied once a run reaches their time).

A run at or after `until` reads the lines appended since `offset` and continues each item's
replay with its accesses up to the run time. An item whose first-seen stamp changed, or that got
an access stamped at or before `until` after the fold (a backdated `record_access`), is replayed
from the whole log, as is everything for a run before `until` (a replay of an earlier night), a
log that is not the file the fold read, or an unreadable fold.
"""

import hashlib
import math
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeGuard

import orjson

VERSION = 1
BASE_STRENGTH = 30.0
GAIN = 1.5


def parse_time(stamp: str) -> datetime:
    when = datetime.fromisoformat(stamp)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def days_between(a: datetime, b: datetime) -> float:
    return max(0.0, (b - a).total_seconds() / 86400.0)


def reinforce(value: float, last: datetime, at: datetime) -> float:
    """S after one more access at `at` (the spacing effect: more after a long gap)."""
    retention = math.exp(-days_between(last, at) / value)
    return value * (1 + GAIN * (1 - retention)) + 1


def replay(value: float, last: datetime, first_seen: datetime, accesses: Iterable[datetime]) -> tuple[float, datetime]:
    """(S, last reinforcement) after the accesses at or after `first_seen`, in time order, on top of (value, last)."""
    for at in sorted(a for a in accesses if a >= first_seen):
        value, last = reinforce(value, last, at), at
    return value, last


def _records(data: bytes) -> Iterable[tuple[str, datetime]]:
    for line in data.splitlines():
        if line.strip():
            try:
                record = orjson.loads(line)
                yield record["id"], parse_time(record["at"])
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a torn or foreign line: skipped, as `read_jsonl` skips it


def _usable(fold: dict[str, Any] | None, now: datetime) -> TypeGuard[dict[str, Any]]:
    """A fold this version wrote, at or before `now`."""
    try:
        return (
            fold is not None
            and fold["version"] == VERSION
            and parse_time(fold["until"]) <= now
            and isinstance(fold["offset"], int)
            and isinstance(fold["items"], dict)
            and isinstance(fold["pending"], list)
        )
    except (KeyError, TypeError, ValueError):
        return False


def _tail_digest(data: bytes) -> str:
    return hashlib.sha256(data[-256:]).hexdigest()[:24]


class AccessHistory:
    """Each item's accesses as of one run time, from the fold and the log's new lines."""

    def __init__(self, log: Path, now: datetime, fold: dict[str, Any] | None) -> None:
        self.log, self.now = log, now
        self._full: dict[str, list[datetime]] | None = None
        self._fold: dict[str, Any] | None = None
        self._fresh: dict[str, list[datetime]] = {}
        self._redo: set[str] = set()
        self._replayed: dict[tuple[str, str], tuple[int, float, datetime]] = {}
        self._size, self._digest = 0, ""
        data = self._tail(fold) if _usable(fold, now) else b""
        if self._fold is None:  # no usable fold: the whole log, once
            self.ids = set(self._read_all())
            return
        until = parse_time(self._fold["until"])
        for item, at in [*((i, parse_time(a)) for i, a in self._fold["pending"]), *_records(data)]:
            if at <= until and item in self._fold["items"]:
                self._redo.add(item)  # stamped before what was folded: its order is gone
            self._fresh.setdefault(item, []).append(at)
        self.ids = set(self._fold["items"]) | set(self._fresh)

    def _tail(self, fold: dict[str, Any]) -> bytes:
        """The log's whole lines after the fold's offset, when the log is still the file the fold
        read (the 256 bytes before the offset are what they were); else nothing, and no fold."""
        offset = int(fold["offset"])
        try:
            with self.log.open("rb") as handle:
                handle.seek(max(0, offset - 256))
                before = handle.read(min(256, offset))
                rest = handle.read()
        except FileNotFoundError:
            before, rest = b"", b""
        if len(before) != min(256, offset) or (offset and _tail_digest(before) != fold["digest"]):
            return b""
        whole = rest[:rest.rfind(b"\n") + 1]  # a line being written is read next time
        self._fold, self._size = fold, offset + len(whole)
        self._digest = _tail_digest(before + whole) if self._size else ""
        return whole

    def _read_all(self) -> dict[str, list[datetime]]:
        """Every access in the log (up to the size this run reads, when a fold gave it)."""
        if self._full is None:
            try:
                with self.log.open("rb") as handle:
                    data = handle.read(self._size) if self._fold is not None else handle.read()
            except FileNotFoundError:
                data = b""
            whole = data[:data.rfind(b"\n") + 1]
            if self._fold is None:
                self._size, self._digest = len(whole), _tail_digest(whole) if whole else ""
            self._full = {}
            for item, at in _records(whole):
                self._full.setdefault(item, []).append(at)
        return self._full

    def reinforced(self, item: str, seen_at: str) -> tuple[int, float, datetime]:
        """(accesses until now, S, last reinforcement) of an item first seen at `seen_at` (worked out
        once per item and stamp: salience asks, then `fold` does)."""
        key = (item, seen_at)
        if key not in self._replayed:
            self._replayed[key] = self._replay(item, seen_at)
        return self._replayed[key]

    def _replay(self, item: str, seen_at: str) -> tuple[int, float, datetime]:
        first = parse_time(seen_at)
        folded = self._fold["items"].get(item) if self._fold is not None else None
        if self._fold is None or item in self._redo or (folded is not None and folded[0] != seen_at):
            accesses = [a for a in self._read_all().get(item, []) if a <= self.now]
            count, value, last = len(accesses), BASE_STRENGTH, first
        else:
            accesses = [a for a in self._fresh.get(item, []) if a <= self.now]
            count, value, last = (folded[1], folded[2], parse_time(folded[3])) if folded else (0, BASE_STRENGTH, first)
            count += len(accesses)
        return (count, *replay(value, last, first, accesses))

    def fold(self, seen: dict[str, str]) -> dict[str, Any]:
        """The fold at this run's time, for the salience state: each item's replay so far (with its
        first-seen stamp in `seen`; an item that is not a salience item now keeps only its count),
        and the accesses stamped later (after a replay of an earlier night, all since then)."""
        items: dict[str, list[Any]] = {}
        for item in sorted(self.ids):
            if item in seen:
                count, value, last = self.reinforced(item, seen[item])
                items[item] = [seen[item], count, value, last.isoformat(timespec="seconds")]
            else:
                items[item] = [None, self._count(item), None, None]
        later = self._read_all().items() if self._fold is None else self._fresh.items()
        pending = sorted(
            [item, at.isoformat(timespec="seconds")] for item, times in later for at in times if at > self.now
        )
        return {
            "version": VERSION,
            "offset": self._size,
            "digest": self._digest,
            "until": self.now.isoformat(),  # to the microsecond
            "items": items,
            "pending": pending,
        }

    def _count(self, item: str) -> int:
        if self._fold is None or item in self._redo:
            return sum(a <= self.now for a in self._read_all().get(item, []))
        folded = self._fold["items"].get(item)
        return (folded[1] if folded else 0) + sum(a <= self.now for a in self._fresh.get(item, []))
