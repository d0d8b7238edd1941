"""The order `mnemo --help` lists the commands in: the order a newcomer uses them (set up, fill,
ask, run), then the daily memory commands, upkeep, serving, and write-back, which edits notes."""

from typing import Any

from typer.core import TyperGroup

NEWCOMER_ORDER = (
    "init", "ingest", "recall", "remember", "status", "up",
    "forget", "entity", "save", "read", "exists", "append", "list", "get-memory",
    "sleep", "merges", "unmerge", "review", "extraction", "compact", "doctor",
    "backup", "restore", "export", "import",
    "mcp", "serve", "keys", "shard", "eval",
    "writeback",
)


class NewcomerOrder(TyperGroup):
    """A command group that lists its commands in NEWCOMER_ORDER (any other command after them)."""

    def list_commands(self, ctx: Any) -> list[str]:  # Any: typer's own copy of click's Context, not public
        named = super().list_commands(ctx)
        last = len(NEWCOMER_ORDER)
        return sorted(named, key=lambda name: NEWCOMER_ORDER.index(name) if name in NEWCOMER_ORDER else last)
