"""Source-level rewriting of programs (no compiler involved): OpenMP schedule clauses today."""

from mirtune.source.openmp import (
    LoopPragma,
    Problem,
    RewriteResult,
    apply_config,
    find_loops,
    make_schedule_runtime,
)

__all__ = ["LoopPragma", "Problem", "RewriteResult", "apply_config", "find_loops", "make_schedule_runtime"]
