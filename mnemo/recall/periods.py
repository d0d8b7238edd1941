"""A question that names a period ("in April 2024", "2022年5月底") is answered with the notes of
that period: what was written or dated in it (`mnemo.note_dates`), one passage per note so that
several notes come back rather than several passages of one, then the period's summary from
sleep mode (the summary whose days best match the period's, carrying its sources), then the
other candidates. When the period holds enough notes to fill the answer, nothing else is
returned. Only notes and journals: conversations are ranked by the learned ranking, which
weighs the named days itself, and a question that names no period is left as it is.
"""

from collections.abc import Callable
from datetime import date

from mnemo.recall.dates import DaySpan
from mnemo.recall.rank import Pool, diversified
from mnemo.recall.results import RecalledItem
from mnemo.recall.sleep_overlay import SleepView, summary_item

MIN_OVERLAP = 0.25  # a summary stands for the period when its days and the period's overlap this much


def period_ranked(
    pool: Pool, span: DaySpan, k: int, view: SleepView, item_of: Callable[[str], RecalledItem],
    others: list[RecalledItem], per_note: int,
) -> list[RecalledItem] | None:
    """The k items for a period question (the module's order), or None when no note of the pool
    lies in the period. `others` are the candidates recall ranked as usual, best first (sleep
    mode's other summaries among them are left out)."""
    inside = [row_id for row_id in pool.best(len(pool.scores)) if _in_period(pool, row_id, span)]
    if not inside:
        return None
    best_of_note: dict[str, str] = {}
    for row_id in inside:  # best first: a note's first passage is its best
        best_of_note.setdefault(pool.rows[row_id]["doc_id"], row_id)
    notes = [item_of(r) for r in best_of_note.values()]
    summary = period_summary(view, span)
    head = notes[: k - 1 if summary is not None else k]
    taken = {i.id for i in head} | {i.doc_id for i in head}
    rest = [i for i in others if i.kind != "summary" and i.id not in taken and i.doc_id not in taken]
    rest = diversified(rest, per_note, {i.id: i.doc_id for i in rest if i.kind == "chunk"})
    return (head + ([summary] if summary is not None else []) + rest)[:k]


def _in_period(pool: Pool, row_id: str, span: DaySpan) -> bool:
    row = pool.rows[row_id]
    return row.get("kind") != "chat" and span.holds(row.get("timestamp") or "")


def period_summary(view: SleepView, span: DaySpan) -> RecalledItem | None:
    """Sleep mode's summary whose period best matches the span's days (by overlap over union),
    if it matches at least MIN_OVERLAP."""
    best, best_overlap = None, MIN_OVERLAP
    for summary in view.summaries:
        overlap = _overlap(span, date.fromisoformat(summary["period_start"][:10]),
                           date.fromisoformat(summary["period_end"][:10]))
        if overlap >= best_overlap and (best is None or overlap > best_overlap):
            best, best_overlap = summary, overlap
    return None if best is None else summary_item(best, 0.0, ["period summary"], [])


def _overlap(span: DaySpan, first: date, last: date) -> float:
    shared = (min(span.last, last) - max(span.first, first)).days + 1
    union = (max(span.last, last) - min(span.first, first)).days + 1
    return max(shared, 0) / union
