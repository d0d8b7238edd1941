"""Which remembered passages recall may return, from their rows' metadata: none whose
`expires_at` (ISO time in UTC) has passed, purged or not, and none of a scope (`project:x`,
`session:y`) the caller did not ask for. Notes and global memories carry neither."""

import datetime as dt
import json
from typing import Any

GLOBAL_ONLY = frozenset({"global"})


def visible_scopes(project: str | None = None, session: str | None = None) -> frozenset[str]:
    """The scopes a caller sees: global, plus its project and its session when given."""
    return GLOBAL_ONLY | ({f"project:{project}"} if project else set()) | ({f"session:{session}"} if session else set())


def hidden(row: dict[str, Any], now: str, scopes: frozenset[str]) -> bool:
    """Whether the chunk row is an expired memory or one of a scope not in `scopes`."""
    metadata = row.get("metadata") or ""
    if "expires_at" not in metadata and "scope" not in metadata:  # most rows: no JSON parsed
        return False
    found = json.loads(metadata)
    expires, scope = found.get("expires_at"), found.get("scope", "global")
    return (isinstance(expires, str) and expires <= now) or scope not in scopes


def hidden_row(row: dict[str, Any], now: str, scopes: frozenset[str], docs: frozenset[str]) -> bool:
    """`hidden`, or the row is a passage of one of the hidden documents `docs` (`recall.visibility`)."""
    return hidden(row, now, scopes) or row.get("doc_id") in docs


def now_iso() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")

