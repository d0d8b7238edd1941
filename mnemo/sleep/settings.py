"""The `sleep:` section of mnemo.yaml: schedule, thresholds and horizons of consolidation."""

from pydantic import BaseModel, ConfigDict, Field


class SleepConfig(BaseModel):
    """When and how hard sleep mode consolidates memory."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cron: str = "0 3 * * *"
    timezone: str = "UTC"
    merge_threshold: float = Field(default=0.9, ge=0.0, le=1.0)
    review_threshold: float = Field(default=0.6, ge=0.0, le=1.0)
    week_after_days: int = Field(default=14, ge=1)
    month_after_days: int = Field(default=90, ge=1)
    fade_below: float = Field(default=0.15, ge=0.0, le=1.0)
    promote_after_accesses: int = Field(default=3, ge=1)
    top_of_mind: int = Field(default=10, ge=0)
    llm: bool = True  # with an `llm:` endpoint configured: abstractive summaries, portrait, abstractions
    # rebuild the graph from the memory files once its file has grown to this many times its size
    # after the last rebuild (see mnemo.maintenance.compaction)
    compact_growth: float = Field(default=2.0, gt=1.0)
