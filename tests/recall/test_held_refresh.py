"""Held chunks followed from version to version (`recall.held`): after a remember, a save that
replaces a text, a forget and an ingest, the refreshed rows are the rows a whole read gives, and
recall answers as a fresh engine does."""

import numpy as np

from mnemo.recall.held import refreshed
from mnemo.recall.search import HeldChunks
from tests.support import Workspace
from tests.support import steady_client as client

QUESTION = "Where is Zephyrine moving?"


def same(a: HeldChunks, b: HeldChunks) -> bool:
    return (a.ids == b.ids and a.data.equals(b.data) and np.array_equal(a.vectors, b.vectors)
            and np.array_equal(a.norms, b.norms) and a.prev == b.prev and a.next == b.next
            and np.array_equal(a.timestamps, b.timestamps) and np.array_equal(a.rowids, b.rowids)
            and a.offset == b.offset)


def test_refreshed_rows_are_the_whole_tables_after_each_kind_of_write(workspace: Workspace) -> None:
    workspace.ingest()
    c = client(workspace)
    table = c.vectors.must_open("chunks")
    held = HeldChunks(table)
    steps = [
        lambda: c.remember("Zephyrine is moving to Oslo in March."),
        lambda: c.save("Move", "Zephyrine moves to Bergen."),
        lambda: c.save("Move", "Zephyrine moves to Tromsø after all."),
        lambda: c.forget(title="Move"),
        lambda: workspace.ingest(),
    ]
    chunks = []
    for step in steps:
        step()
        table = c.vectors.must_open("chunks")
        followed = refreshed(held, table, follow_from=0)  # the example vault is small
        assert same(followed, HeldChunks(table))
        chunks.append(followed.data["id"].num_chunks)  # 1 when read whole; the rows taken join as a chunk
        held = followed
        assert [i.id for i in c.recall(QUESTION).items] == [i.id for i in client(workspace).recall(QUESTION).items]
    assert chunks[0] == 2 and min(chunks[:3]) > 1  # the remember and the saves were followed, not read whole


def test_a_recreated_table_is_read_whole(workspace: Workspace) -> None:
    """A table removed and rebuilt (repair, restore) starts its versions and addresses again."""
    from mnemo.stores.vector_repair import remove_table

    workspace.ingest()
    c = client(workspace)
    c.remember("Zephyrine is moving to Oslo in March.")
    held = HeldChunks(c.vectors.must_open("chunks"))
    remove_table(c.vectors.path, "chunks")
    c.save("Move", "Zephyrine moves to Bergen.")  # the new table's first rows
    table = c.vectors.must_open("chunks")
    assert same(refreshed(held, table, follow_from=0), HeldChunks(table))
    assert [i.text for i in c.recall(QUESTION).items] == ["Zephyrine moves to Bergen."]
