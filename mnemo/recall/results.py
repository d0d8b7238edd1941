"""What recall answers: the items, why each came back, and the entities behind them."""

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class RecalledItem:
    """One thing recall returns, with why it was included."""


    id: str
    kind: str
    text: str
    score: float
    path: str = ""
    title: str = ""
    heading: str = ""
    timestamp: str = ""
    doc_id: str = ""
    reasons: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    similarity: float | None = None  # a passage's cosine similarity to the query (-1..1; `recall.similarity`)


    @classmethod
    def from_row(cls, row: dict[str, Any], score: float, reasons: list[str]) -> "RecalledItem":
        """A passage from its row in the chunks table, titled by what its note calls itself (`name`
        in its metadata, for a note named by an identifier; `note_names`), else by its note's title."""
        metadata = json.loads(row["metadata"] or "{}")
        return cls(row["id"], "chunk", row["text"], score, row["path"], metadata.get("name") or row["title"],
                   row["heading"], row["timestamp"], row["doc_id"], reasons, metadata)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RecallResult:
    """What recall answers: assembled text, the entity references behind it, and the items."""


    text: str
    grounding: list[str]
    items: list[RecalledItem]
    mode: str = "eager"
    degraded: str | None = None
    top_of_mind: list[str] = field(default_factory=list)  # entity ids sleep mode marked top of mind (eager)


    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "grounding": self.grounding, "mode": self.mode, "degraded": self.degraded,
                "items": [i.to_dict() for i in self.items], "top_of_mind": self.top_of_mind}
