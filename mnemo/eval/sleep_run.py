"""Sleep mode inside an evaluation: one consolidation, late enough that week and month
summaries exist for every period the namespace holds, followed as in the sleep job by the
entity vectors when entities were merged."""

from datetime import UTC, datetime, timedelta

from mnemo.config import SleepConfig
from mnemo.pipelines.ingest import IngestPipeline
from mnemo.sleep.consolidate import STEPS, SleepReport, consolidate
from mnemo.stores.files import NamespaceFiles

OFFLINE = "offline, no LLM"


def sleep_time(files: NamespaceFiles, settings: SleepConfig) -> datetime:
    """Now, or later when the newest passage is too recent for its month to be summarized."""
    stamps = [c.timestamp for c in files.read_chunks() if c.timestamp]
    now = datetime.now(UTC)
    if not stamps:
        return now
    newest = datetime.fromisoformat(max(stamps)[:10]).replace(tzinfo=UTC)
    return max(now, newest + timedelta(days=settings.month_after_days + 32))


def consolidate_for_eval(pipeline: IngestPipeline, settings: SleepConfig | None = None) -> SleepReport:
    """Every sleep step, offline (no LLM), at `sleep_time`; then the ingest pipeline's entity
    vectors step when dedup merged entities, as the sleep job does."""
    settings = settings or SleepConfig()
    files = pipeline.files
    report = consolidate(files, pipeline.graph, settings, sleep_time(files, settings), pipeline.namespace.self_name,
                         vectors=pipeline.vectors, run_id="eval")
    if report.dedup and report.dedup.merges:
        pipeline.entity_vectors()
    return report


def sleep_steps(report: SleepReport) -> dict[str, str]:
    """The sleep steps an evaluation's consolidation ran, for its report (as `IngestRun.steps`)."""
    steps = dict.fromkeys(STEPS, OFFLINE)
    if report.dedup and report.dedup.merges:
        steps["entity_vectors"] = f"after {len(report.dedup.merges)} merges"
    return steps
