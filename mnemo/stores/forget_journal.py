"""The forget journal: what a forget is removing, made durable before any store is touched.

A forget changes many files one after another (the tombstones, the pipeline's files, sleep's
files, the vector tables, the graph, the entity's note, the memory's inbox file). A process
killed between two of them leaves some changed and some not, and the next run can no longer see
what was being forgotten (the entity has left the graph, the document has left the files). So
the forget first writes `<namespace>/forget.journal.json`, holding the namespace lock: the
tombstones it adds, every chunk id they cover, the notes whose mnemo block goes, the inbox files
that go, and each entity's row hash before (to tell which entities the forget removed or changed).
Each step is idempotent and marks itself done in the journal; the journal is removed only when
every step is done. Any later forget (and `mnemo doctor --fix`, ingest and sleep mode) finishes
a journal it finds before doing anything else. The journal names ids, never the forgotten text.
"""

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mnemo.errors import MnemoError
from mnemo.stores import durable, faults
from mnemo.stores.tombstones import Tombstones

FILE = "forget.journal.json"
STEPS = ("tombstones", "state", "sleep", "vectors", "graph", "notes", "inbox")


@dataclass(frozen=True)
class PageRef:
    """A note whose mnemo write-back block a forget takes out: its source's label and path."""

    source: str
    path: str


@dataclass
class ForgetJournal:
    """One forget, from its start until every step is done."""

    forgotten: Tombstones
    chunks: list[str] = field(default_factory=list)
    pages: list[PageRef] = field(default_factory=list)
    inbox: list[str] = field(default_factory=list)
    entities_before: dict[str, str] = field(default_factory=dict)
    request: dict[str, Any] = field(default_factory=dict)
    items: list[dict[str, Any]] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    started: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    resumed: bool = False  # read back from disk: a run before this one was cut off

    def to_json(self) -> dict[str, Any]:
        return {"forgotten": self.forgotten.stored(), "chunks": self.chunks,
                "pages": [[p.source, p.path] for p in self.pages], "inbox": self.inbox,
                "entities_before": self.entities_before, "request": self.request, "items": self.items,
                "done": self.done, "started": self.started}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "ForgetJournal":
        stored = data["forgotten"]
        forgotten = Tombstones(set(stored["chunks"]), set(stored["docs"]), set(stored["entities"]),
                               {(e, p) for e, p in stored["properties"]}, {(e, r) for e, r in stored["relations"]})
        return cls(forgotten, list(data["chunks"]), [PageRef(s, p) for s, p in data["pages"]], list(data["inbox"]),
                   dict(data["entities_before"]), dict(data["request"]), list(data["items"]), list(data["done"]),
                   str(data["started"]), resumed=True)

    def save(self, root: Path) -> None:
        durable.write_json(Path(root) / FILE, self.to_json(), "forget:journal", indent=None)

    def mark(self, root: Path, step: str) -> None:
        """Record that `step` is done (durably: a later run skips it)."""
        self.done.append(step)
        self.save(root)


def pending_forget(root: Path) -> ForgetJournal | None:
    """The journal of a forget that did not finish (None when there is none)."""
    path = Path(root) / FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise MnemoError(f"{path}: the journal of an unfinished forget cannot be read ({exc}); "
                         "run the same forget again after moving it aside") from None
    try:
        return ForgetJournal.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise MnemoError(f"{path}: the journal of an unfinished forget lacks field {exc}; "
                         "run the same forget again after moving it aside") from None


def close_journal(root: Path) -> None:
    """Every step is done: the journal goes."""
    faults.point("forget:done")
    (Path(root) / FILE).unlink(missing_ok=True)
