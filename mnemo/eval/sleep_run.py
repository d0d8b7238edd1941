"""Sleep mode inside an evaluation: one consolidation, late enough that week and month
summaries exist for every period the namespace holds."""

from datetime import UTC, datetime, timedelta

from mnemo.config import SleepConfig
from mnemo.sleep.consolidate import SleepReport, consolidate
from mnemo.stores.files import NamespaceFiles
from mnemo.stores.graph import GraphStore
from mnemo.stores.vectors import VectorStore


def sleep_time(files: NamespaceFiles, settings: SleepConfig) -> datetime:
    """Now, or later when the newest passage is too recent for its month to be summarized."""
    stamps = [c.timestamp for c in files.read_chunks() if c.timestamp]
    now = datetime.now(UTC)
    if not stamps:
        return now
    newest = datetime.fromisoformat(max(stamps)[:10]).replace(tzinfo=UTC)
    return max(now, newest + timedelta(days=settings.month_after_days + 32))


def consolidate_for_eval(files: NamespaceFiles, graph: GraphStore, vectors: VectorStore,
                         settings: SleepConfig | None = None) -> SleepReport:
    """Every sleep step, offline (no LLM), at `sleep_time`."""
    settings = settings or SleepConfig()
    return consolidate(files, graph, settings, sleep_time(files, settings), vectors=vectors, run_id="eval")
