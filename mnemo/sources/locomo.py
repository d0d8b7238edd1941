"""LoCoMo conversation files: a list of conversations, each with dated sessions of turns.

One Document per session (an episode of the conversation) whose segments are its turns,
each marked standalone so it becomes one chunk that keeps the turn's `dia_id` in its metadata, so evaluations can map
what recall returns back to the dataset's evidence ids. Images shared in a turn are kept
as their caption. The dataset's questions, answers and summaries are not read.
"""

import datetime as dt
import json
import re
from typing import Any

from mnemo.documents import Document, Segment, content_hash
from mnemo.errors import SourceError

SUFFIXES = (".json",)
_SESSION_KEY = re.compile(r"^session_(\d+)$")
_DATE_TIME = re.compile(
    r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.IGNORECASE
)
_MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ),
        1,
    )
}


def parse_date_time(text: str) -> str | None:
    """`1:56 pm on 8 May, 2023` -> `2023-05-08T13:56:00`; None when it is not in that form."""
    match = _DATE_TIME.match(text or "")
    if not match:
        return None
    hour, minute, half, day, month, year = match.groups()
    month_number = _MONTHS.get(month.lower())
    if month_number is None:
        return None
    hour_24 = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    try:
        return dt.datetime(int(year), month_number, int(day), hour_24, int(minute)).isoformat()
    except ValueError:
        return None


def turn_text(turn: dict[str, str]) -> str:
    """A turn's words, with a shared image kept as its caption."""
    return f"{turn['text']} [shares an image: {turn['image']}]" if turn.get("image") else turn["text"]


def _segments(turns: list[dict[str, str]], episode: str, when: str | None) -> list[Segment]:
    return [
        Segment(id=t["dia_id"] or f"turn-{i}", text=turn_text(t), speaker=t["speaker"], role="user", timestamp=when,
                episode=episode, meta={"standalone": True, **({"dia_id": t["dia_id"]} if t["dia_id"] else {})})
        for i, t in enumerate(turns)
    ]


def _turn(raw: Any, where: str) -> dict[str, str]:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str) or not isinstance(raw.get("speaker"), str):
        raise ValueError(f"{where}: a turn needs string 'speaker' and 'text'")
    turn = {"dia_id": str(raw.get("dia_id") or ""), "speaker": raw["speaker"].strip(), "text": raw["text"].strip()}
    caption = raw.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        turn["image"] = caption.strip()
    return turn


def _session_document(
    conv: dict[str, Any], number: int, turns: list[dict[str, str]], *, namespace: str, source: str, rel: str,
    modified: str | None,
) -> Document:
    sample = str(conv.get("sample_id") or "")
    speakers = [
        s for s in (conv["conversation"].get("speaker_a"), conv["conversation"].get("speaker_b")) if isinstance(s, str)
    ]
    said_at = str(conv["conversation"].get(f"session_{number}_date_time") or "")
    when = parse_date_time(said_at)
    body = "\n".join(f"{t['speaker']}: {turn_text(t)}" for t in turns)
    properties = {"sample_id": sample, "session": number, "date_time": said_at, "speakers": speakers}
    return Document(
        id="doc_" + content_hash(namespace, source, rel, sample, str(number)),
        namespace=namespace, source=source, path=f"{rel}#{sample or 'conversation'}/session_{number}",
        title=f"{' and '.join(speakers) or 'Conversation'}, session {number}", kind="chat", body=body,
        content_hash=content_hash(body, said_at), properties=properties, created=when, modified=modified,
        day=when[:10] if when else None, segments=_segments(turns, said_at or f"session {number}", when),
        problems=[] if when or not said_at else [f"session {number}: unreadable date {said_at!r}"],
    )


def _conversation_documents(conv: Any, index: int, **where: Any) -> list[Document]:
    label = f"conversation {index}"
    if not isinstance(conv, dict) or not isinstance(conv.get("conversation"), dict):
        raise ValueError(f"{label}: no 'conversation' mapping")
    docs = []
    sessions = sorted(
        (int(m.group(1)), value) for key, value in conv["conversation"].items()
        if (m := _SESSION_KEY.match(key)) and isinstance(value, list)
    )
    for number, raw_turns in sessions:
        turns = [_turn(t, f"{label} session {number} turn {i}") for i, t in enumerate(raw_turns)]
        if turns:
            docs.append(_session_document(conv, number, turns, **where))
    return docs


def parse_locomo(text: str, *, namespace: str, source: str, rel_path: str, modified: str | None) -> list[Document]:
    """Every session of every conversation in a LoCoMo JSON file, as chat Documents."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(rel_path, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    conversations = data if isinstance(data, list) else [data]
    where = {"namespace": namespace, "source": source, "rel": rel_path, "modified": modified}
    docs: list[Document] = []
    for index, conv in enumerate(conversations):
        try:
            docs.extend(_conversation_documents(conv, index, **where))
        except ValueError as exc:
            raise SourceError(rel_path, f"not a LoCoMo file: {exc}") from None
    if not docs:
        raise SourceError(rel_path, "no conversation sessions with turns found")
    return docs
