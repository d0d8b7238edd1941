"""What the graph answers, on one read-only opening (`GraphStore.reading`): callers ask these
questions by name and never write Cypher; each subject's questions live in its own module."""

from mnemo.stores.graph_audit_reads import AuditReads
from mnemo.stores.graph_entity_reads import EntityReads
from mnemo.stores.graph_note_reads import NoteReads
from mnemo.stores.graph_recall_reads import RecallReads
from mnemo.stores.graph_sleep_reads import SleepReads


class GraphReader(NoteReads, SleepReads, EntityReads, RecallReads, AuditReads):
    """Every question of the graph, on one open connection."""
