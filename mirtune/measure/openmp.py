"""What the OpenMP sweep and `mirtune tune --task openmp` measure: the space (threads, OMP_SCHEDULE's kind and
chunk, a power limit), the row columns, and the schedule(runtime) copy of a program that OMP_SCHEDULE reaches."""

from __future__ import annotations

from typing import Any, Sequence

import pyarrow as pa

from mirtune.measure.space import Dimension
from mirtune.source.openmp import LIMITS

SCHEDULES = ("static", "dynamic", "guided")
DIMENSIONS: dict[str, Dimension] = {
    "power": Dimension("power", float, (75.0, 100.0, 120.0, 150.0), help="power limit in watts"),
    "threads": Dimension("threads", int, (1, 4, 8, 16, 32, 64), help="OMP_NUM_THREADS", maximum=LIMITS["threads"]),
    "schedule": Dimension("schedule", str, SCHEDULES, choices=SCHEDULES, help="OMP_SCHEDULE kind"),
    "chunk": Dimension("chunk", int, (1, 8, 32, 64, 128, 256, 512), help="OMP_SCHEDULE chunk",
                       maximum=LIMITS["chunk"]),
}
COLUMNS: dict[str, pa.DataType] = {
    "power_w": pa.float64(), "threads": pa.int64(), "schedule": pa.string(), "chunk": pa.int64(),
    "omp_schedule": pa.string(), "power_reason": pa.string(),
    "tunable_loops": pa.int64(), "fixed_loops": pa.int64(), "rewrite_problems": pa.list_(pa.string()),
    "variant": pa.string(),
}


def thread_counts(cores: int, values: Sequence[int] = DIMENSIONS["threads"].values) -> tuple[int, ...]:
    """Table 4's thread counts clipped to `cores`, always with 1 and `cores` itself."""
    return tuple(sorted({v for v in values if v <= cores} | {1, cores}))


def rewrite_for_runtime_schedule(source: str) -> tuple[str, dict[str, Any], str | None]:
    """(text to build, row columns, failure): the schedule(runtime) copy of a program.

    Without the rewriter the original text is built, the loop counts are None and the row says why.
    """
    try:
        from mirtune.source.openmp import make_schedule_runtime
    except ImportError as exc:
        note = (f"schedule(runtime) rewrite unavailable ({exc}); OMP_SCHEDULE reaches only loops that "
                "already say schedule(runtime)")
        return source, {"tunable_loops": None, "fixed_loops": None, "rewrite_problems": [note]}, None
    try:
        res = make_schedule_runtime(source)
    except Exception as exc:
        return source, {"tunable_loops": None, "fixed_loops": None, "rewrite_problems": []}, \
            f"schedule(runtime) rewrite failed: {type(exc).__name__}: {exc}"
    cols = {"tunable_loops": int(res.tunable), "fixed_loops": int(res.fixed),
            "rewrite_problems": [str(p) for p in res.problems]}
    return res.source, cols, None


def merged_rewrite_columns(parts: Sequence[dict[str, Any]], names: Sequence[str]) -> dict[str, Any]:
    """The rewrite's row columns of a program of several files (one `rewrite_for_runtime_schedule` each): loop
    counts summed (None when one file's are unknown), problems named by file; a single file's as they are."""
    if len(parts) == 1:
        return dict(parts[0])

    def total(key: str) -> int | None:
        values = [p.get(key) for p in parts]
        return None if any(v is None for v in values) else int(sum(values))

    problems = [f"{name}: {problem}" for name, p in zip(names, parts) for problem in p.get("rewrite_problems") or []]
    return {"tunable_loops": total("tunable_loops"), "fixed_loops": total("fixed_loops"), "rewrite_problems": problems}
