"""Purging memories: the expired ones (recall already hides them, `recall.passage_visibility`),
or those a forget by title or scope names. They go as every `forget` removes things — a
tombstone first, so a re-ingest never brings them back, then every store — and their inbox
files are deleted. `mnemo forget --expired` purges the expired ones now; sleep mode nightly."""

import datetime as dt
from pathlib import Path

from mnemo.maintenance.forget import ForgetReport, ForgetStores, apply_forget, resume_forget
from mnemo.sources.memory_files import Memory, inbox_dir, memory_doc_ids, read_memory


def expired_memories(root: Path, now: dt.datetime) -> list[Memory]:
    """The inbox's memories whose expiry is at or before `now` (files that are not memories are
    left to the scan, which reports them)."""
    folder = inbox_dir(root)
    found = []
    for path in sorted(folder.glob("mem_*.json")) if folder.is_dir() else []:
        try:
            memory = read_memory(path)
        except (OSError, ValueError, TypeError):
            continue
        if memory.expired(now):
            found.append(memory)
    return found


def expiry_report(memories: list[Memory]) -> ForgetReport:
    """What forgetting these memories removes: each one's note and entity documents."""
    return ForgetReport(docs={d for m in memories for d in memory_doc_ids(m)},
                        items=[{"memory": m.id, "text": m.text, "expires_at": m.expires_at} for m in memories])


def purge_expired(stores: ForgetStores, now: dt.datetime | None = None) -> ForgetReport:
    """Forget every memory expired at `now` (the current time when None) and delete its inbox file."""
    return purge_memories(stores, expired_memories(stores.files.root, now or dt.datetime.now(dt.UTC)))


def purge_memories(stores: ForgetStores, memories: list[Memory]) -> ForgetReport:
    """Forget these memories (a tombstone, then every store) and delete their inbox files; with none,
    only a forget that was cut off is finished."""
    report = expiry_report(memories)
    if memories:
        apply_forget(stores, report, [m.id for m in memories])
    else:
        resume_forget(stores)
    return report
