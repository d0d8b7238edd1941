"""The run queue of the many-machine instance: Dagster's queued run coordinator (its limits under
`concurrency:` in deploy/dagster.yaml), looking for runs to launch every half second.

Dagster takes the interval in whole seconds (5 by default) and its daemon sleeps in half-second
steps, so a run waits on average half an interval plus the daemon's pass before it is launched;
and runs submitted together can be split over two passes, the second shard starting a whole
interval after the first. Half a second is the shortest interval the daemon keeps; each pass is
one query for queued runs (benchmarks/results/shards-2026-11-27.md)."""

from collections.abc import Mapping
from typing import Any, cast

import dagster as dg
from dagster._core.run_coordinator import QueuedRunCoordinator

DEQUEUE_INTERVAL_SECONDS = 0.5


class ShardRunCoordinator(QueuedRunCoordinator):
    """`run_coordinator:` in deploy/dagster.yaml: QueuedRunCoordinator's settings, with a
    `dequeue_interval_seconds` that may be a fraction (0.5 when not given)."""

    def __init__(self, dequeue_interval_seconds: float | None = None, **settings: Any) -> None:
        super().__init__(**settings)
        self._interval = float(dequeue_interval_seconds or DEQUEUE_INTERVAL_SECONDS)

    @property
    def dequeue_interval_seconds(self) -> float:  # type: ignore[override]  # Dagster's daemon takes any number
        return self._interval

    @classmethod
    def config_type(cls) -> dict[str, Any]:
        fields = dict(cast(Mapping[str, Any], super().config_type()))  # QueuedRunCoordinator's is a dict
        fields["dequeue_interval_seconds"] = dg.Field(
            float, is_required=False, description="Seconds between the daemon's looks at the run queue "
            f"(fractions allowed; {DEQUEUE_INTERVAL_SECONDS} when not given).")
        return fields
