"""Expired memories at query time: a remembered passage whose `expires_at` (in its row's
metadata, ISO time in UTC) has passed is never returned, purged or not."""

import datetime as dt
import json
from typing import Any


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def expired(row: dict[str, Any], now: str) -> bool:
    """Whether the chunk row belongs to a memory that expired at or before `now`."""
    metadata = row.get("metadata") or ""
    if "expires_at" not in metadata:  # most rows: no JSON parsed
        return False
    expires = json.loads(metadata).get("expires_at")
    return isinstance(expires, str) and expires <= now
