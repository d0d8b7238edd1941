"""The top entries of a pyinstrument profile: where the time goes, by function."""

from collections import defaultdict
from typing import Any


def _own(frame: Any) -> float:
    """Time in the frame's own code: its time less that of its real (non-synthetic) callees."""
    if frame.is_synthetic:
        return 0.0
    return frame.time - sum(c.time for c in frame.children if not c.is_synthetic)


def top_frames(profiler: Any, count: int) -> list[dict[str, Any]]:
    """Functions by self time (time spent in their own code), with their share of the run."""
    root = profiler.last_session.root_frame()
    if root is None:
        return []
    self_time: dict[str, float] = defaultdict(float)
    stack = [root]
    while stack:
        frame = stack.pop()
        stack.extend(frame.children)
        if _own(frame) > 0:
            where = f"{frame.function} ({frame.file_path_short}:{frame.line_no})"
            self_time[where] += _own(frame)
    total = root.time or 1.0
    ranked = sorted(self_time.items(), key=lambda kv: -kv[1])[:count]
    return [{"function": name, "self_s": round(seconds, 3), "share": round(seconds / total, 3)} for name, seconds in ranked]


def _library(path: str) -> str:
    """The package a source file belongs to (`torch`, `lancedb`, `mnemo` ...)."""
    parts = path.replace("\\", "/").split("/")
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1].removesuffix(".py")
    for package in ("mnemo", "assets", "resources", "ontology", "benchmarks"):
        if package in parts:
            return package
    return "python" if "python3" in "/".join(parts) else parts[-1]


def by_library(profiler: Any) -> dict[str, float]:
    """Self time summed per package (built-in calls count for the package that made them)."""
    root = profiler.last_session.root_frame()
    totals: dict[str, float] = defaultdict(float)
    stack = [(root, "?")] if root is not None else []
    while stack:
        frame, caller = stack.pop()
        path = frame.file_path or ""
        library = caller if not path or path.startswith("<") else _library(path)
        stack.extend((child, library) for child in frame.children)
        if _own(frame) > 0:
            totals[library] += _own(frame)
    return dict(sorted(((k, round(v, 3)) for k, v in totals.items()), key=lambda kv: -kv[1]))
