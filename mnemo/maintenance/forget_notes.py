"""Forgetting an entity in its own note: mnemo's write-back block leaves the note, nothing else.

The note that is a forgotten entity's page is the person's file: it is never deleted, and no
character outside mnemo's block (the `mnemo-*` frontmatter properties, or Logseq's `mnemo-*::`
page properties) changes. The block goes the way a write-back writes: through the write-back journal
(op `forget`), so `mnemo writeback --undo RUN` puts it back, and a note edited meanwhile is
left alone and reported.
"""

from pathlib import Path

from mnemo.config import MnemoConfig
from mnemo.errors import MnemoError, WritebackRefused
from mnemo.sources.logseq_properties import without_properties
from mnemo.sources.note_layout import BOM, find_block, layout, without_block
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.forget_journal import PageRef
from mnemo.writeback.frontmatter import Patch
from mnemo.writeback.journal import Journal, added_blank_line
from mnemo.writeback.note_files import digest, read_note, run_lock
from mnemo.writeback.run import (
    FORMATS,
    NoteChange,
    Skip,
    WritebackPlan,
    WritebackReport,
    apply_plan,
    journal_for,
    new_run_id,
    sweep_note_folders,
)


def difference(old: str, new: str) -> Patch | None:
    """The one replacement that turns `old` into `new` (None when they are equal)."""
    if old == new:
        return None
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end = 0
    while end < limit - start and old[len(old) - 1 - end] == new[len(new) - 1 - end]:
        end += 1
    return Patch(start, old[start:len(old) - end], new[start:len(new) - end])


def block_removal(
    text: str, kind: str, key: str, made_frontmatter: bool = True, drop_blank: bool = False,
) -> Patch | None:
    """The patch that takes mnemo's block out of a note (None: it has none). `made_frontmatter`:
    the write-back that first added the block also made the frontmatter around it, which goes
    too when nothing else is left in it; else an empty frontmatter the person wrote stays. `drop_blank`:
    that write-back also put a blank line after its Logseq lines, which goes with them."""
    where = layout(text)
    if FORMATS[kind] == "logseq" and where.yaml_start is None:
        return difference(text, without_properties(text, key, drop_blank))
    if find_block(text, where, key) is None:
        return None
    return difference(text, without_block(text, key, drop_empty=made_frontmatter))


def made_frontmatter(journal: Journal, source: str, path: str) -> bool:
    """Whether the write-back that last added a block to the note made its frontmatter (True when
    the journal does not say: the block is then all the frontmatter holds, or it is kept)."""
    added = [e for e in journal.entries() if e.source == source and e.path == path and e.op == "write" and not e.old]
    return not added or added[-1].new.lstrip(BOM).startswith("---")


def plan_removals(config: MnemoConfig, namespace: str, pages: list[PageRef]) -> WritebackPlan:
    """Read each page note and compute the removal of its mnemo block; nothing is written."""
    plan = WritebackPlan()
    journal = journal_for(config, namespace)
    sources = {s.label: s for s in config.namespace(namespace).sources if s.kind in FORMATS}
    for page in pages:
        source = sources.get(page.source)
        if source is None or not page.path.lower().endswith(".md"):
            continue
        file = Path(source.path) / page.path
        try:
            data = read_note(file)
            text = data.decode("utf-8")
            made = made_frontmatter(journal, source.label, page.path)
            blank = added_blank_line(journal.added().get((source.label, page.path)))
            patch = block_removal(text, source.kind, config.writeback.key, made, blank)
        except (OSError, UnicodeDecodeError, WritebackRefused) as exc:
            plan.skipped.append(Skip(page.path, f"its mnemo block was left in place: {exc}"))
            continue
        if patch is None:
            plan.unchanged += 1
        else:
            plan.changes.append(NoteChange(source.label, page.path, file, digest(data), text, patch))
    return plan


def remove_blocks(config: MnemoConfig, namespace: str, pages: list[PageRef]) -> WritebackReport | None:
    """Take mnemo's block out of each page note, journaled as one write-back run (None: no note had one)."""
    plan = plan_removals(config, namespace, pages)
    if not plan.changes and not plan.skipped:
        return None
    run = new_run_id()
    try:
        with run_lock(NamespaceFiles(config.data_root(namespace), namespace).root):
            sweep_note_folders(config, namespace)  # what a write-back (or forget) cut off left
            return apply_plan(plan, journal_for(config, namespace), run, op="forget")
    except MnemoError as exc:  # another write-back is running: the blocks stay, and the report says so
        return WritebackReport(run, skipped=[*plan.skipped, *(Skip(c.path, f"its mnemo block was left in place: {exc}")
                                                           for c in plan.changes)])
