"""The profile columns a predictor reads beside the static context: seven numbers from one profiled run
(`mirtune.profile.ompt.ProfileFeatures`, or a row of the datasets' profile table), counts and times on a log scale,
so that a program profiled by `recommend --profile` and the rows a predictor was fitted on give the same columns;
and beside them what the run's timings cannot show, read from the IR (IR_COLUMNS: updates the threads serialise
on). A predictor records the names it reads (`Predictor.features["profile"]`) and `profile_row` builds them."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from mirtune.errors import MirtuneError

PROFILE_SOURCE_COLUMNS = ("region_entries_per_s", "time_per_region_s", "parallel_share", "work_share", "imbalance",
                          "iterations_per_loop", "loop_imbalance")  # the ProfileFeatures fields they come from
PROFILE_COLUMNS = ("log10_region_entries_per_s", "log10_time_per_region_s", "parallel_share", "work_share",
                   "imbalance", "log10_iterations_per_loop", "loop_imbalance")
# Read from the IR: a loop whose threads increment one small table through atomics runs slower on two threads
# than on one while the profile shows them busy (docs/profile.md, pixel_hist).
IR_COLUMNS = ("log1p_shared_updates_in_loops",)
FITTED_COLUMNS = PROFILE_COLUMNS + IR_COLUMNS  # what `mirtune fit --profiles` fits a predictor on


def _number(value: Any) -> float:
    """A float, NaN for a missing value (None in a profile, NaN in a Parquet row)."""
    return float("nan") if value is None else float(value)


def profile_vector(features: Mapping[str, Any]) -> np.ndarray:
    """The PROFILE_COLUMNS of one profile's features (a dict of `ProfileFeatures`' fields); a figure the run has
    nothing to say about (no region, no worksharing loop) is 0."""
    f = {k: _number(features.get(k)) for k in PROFILE_SOURCE_COLUMNS}
    log = lambda v, floor: math.log10(max(v, floor)) if not math.isnan(v) else float("nan")  # noqa: E731
    row = [log(f["region_entries_per_s"], 1e-3), log(f["time_per_region_s"], 1e-7), f["parallel_share"],
           f["work_share"], f["imbalance"], log(f["iterations_per_loop"], 1.0), f["loop_imbalance"]]
    return np.nan_to_num(np.asarray(row, dtype=np.float64), nan=0.0)


def profile_matrix(rows: Sequence[Mapping[str, Any] | None]) -> tuple[np.ndarray, np.ndarray]:
    """One PROFILE_COLUMNS row per entry of `rows` (a profile's features, or None where there is none: zeros),
    and the mask of the entries that have one."""
    have = np.array([r is not None for r in rows], dtype=bool)
    X = np.array([profile_vector(r) if r is not None else np.zeros(len(PROFILE_COLUMNS)) for r in rows],
                 dtype=np.float64).reshape(len(rows), len(PROFILE_COLUMNS))
    return X, have


def group_profiles(profiles: "Any", programs: Sequence[str], sizes: Sequence[str]) -> list[dict[str, Any] | None]:
    """The profile of each group (program, input size key) of a gain table, from the datasets' profile table (a
    DataFrame of `scripts/profile_openmp_datasets.py`'s rows; only rows with status ok count); None where a group
    has none."""
    from mirtune.tasks.measured import size_key

    ok = profiles[profiles["status"] == "ok"]
    by_key = {(r["program"], size_key(r)): r for r in ok.to_dict("records")}
    return [by_key.get((prog, size)) for prog, size in zip(programs, sizes)]


def ir_vector(module: Any) -> np.ndarray:
    """The IR_COLUMNS of a module (IRModule, llvmlite module or IR text): atomic read-modify-writes and critical
    entries in the loop bodies of parallel code (`mirtune.ir.openmp.shared_updates`), log1p."""
    from mirtune.ir.openmp import shared_updates

    return np.array([math.log1p(sum(shared_updates(module).values()))], dtype=np.float64)


def profile_row(names: Sequence[str], profile: Mapping[str, Any], module: Any) -> np.ndarray:
    """The columns `names` (of PROFILE_COLUMNS and IR_COLUMNS, in the order a predictor recorded them) of one
    program: its profile's features and its IR."""
    unknown = [n for n in names if n not in FITTED_COLUMNS]
    if unknown:
        raise MirtuneError(f"the predictor reads profile columns this mirtune does not make: {', '.join(unknown)}")
    values = dict(zip(PROFILE_COLUMNS, profile_vector(profile)))
    if any(n in IR_COLUMNS for n in names):
        values.update(zip(IR_COLUMNS, ir_vector(module)))
    return np.array([values[n] for n in names], dtype=np.float64)
