"""The profile columns a predictor reads beside the static context: seven numbers from one profiled run
(`mirtune.profile.ompt.ProfileFeatures`, or a row of the datasets' profile table), counts and times on a log scale,
so that a program profiled by `recommend --profile` and the rows a predictor was fitted on give the same columns;
beside them what the run's timings cannot show, read from the IR (IR_COLUMNS: updates the threads serialise on);
and the thread probe (PROBE_COLUMNS): one plain run on one thread against one on all cores, which says directly
whether threads pay (in the datasets: the first untimed run of those two configurations, never part of a label).
A predictor records the names it reads (`Predictor.features["profile"]`) and `profile_row` builds them."""

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
# One run on one thread against one on all cores (log2 of all-cores time / one-thread time: > 0 when one thread is
# faster); what neither the profile nor the IR can tell apart, contended atomics from atomics spread over a large
# grid (docs/profile.md, particle_deposit and dice_league), it measures.
PROBE_COLUMNS = ("log2_one_thread_speedup",)
FITTED_COLUMNS = PROFILE_COLUMNS + IR_COLUMNS + PROBE_COLUMNS  # what `mirtune fit --profiles` fits a predictor on
PROBE_THREADS = 1  # the probe's thread count; its schedule is the default (static, no chunk)


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


def probe_value(one_thread_speedup: float | None) -> float:
    """PROBE_COLUMNS' value: log2 of (all-cores time / one-thread time); 0 (no evidence) where there is no probe."""
    if one_thread_speedup is None or not math.isfinite(one_thread_speedup) or one_thread_speedup <= 0:
        return 0.0
    return math.log2(one_thread_speedup)


def probe_config(configs: Sequence[Mapping[str, Any]]) -> int | None:
    """The configuration of a gain table nearest the probe's run: PROBE_THREADS threads, static schedule, the
    largest chunk (one thread runs a static loop's chunks in order, as it runs the unchunked loop); None if none."""
    cands = [(c.get("chunk") or 0, i) for i, c in enumerate(configs)
             if c.get("threads") == PROBE_THREADS and c.get("schedule") in (None, "static")]
    return max(cands)[1] if cands else None


def probe_column(table: Any) -> np.ndarray:
    """PROBE_COLUMNS of each group of a gain table, from its cells' first untimed runs (`GainTable.warmups`): the
    default's over the probe configuration's, one run each as at recommend time, and neither part of the medians
    the labels come from; 0 where either run is missing."""
    j = probe_config(table.configs)
    n = len(table)
    if j is None or table.warmups is None:
        return np.zeros((n, 1))
    ratio = table.warmups[:, 0] / table.warmups[:, j]
    return np.array([[probe_value(float(r))] for r in ratio], dtype=np.float64).reshape(n, 1)


def probe_position(names: Sequence[str], dim: int) -> int | None:
    """The index of the probe's column in a feature row of width `dim` whose last columns are the profile columns
    `names` (a predictor's `features["profile"]`); None when they do not hold it."""
    names = list(names)
    return dim - len(names) + names.index(PROBE_COLUMNS[0]) if PROBE_COLUMNS[0] in names else None


def probe_offsets(configs: Sequence[Mapping[str, Any]], probe: np.ndarray) -> np.ndarray:
    """What the thread probe measured, as log gains over the default (natural log) of every configuration,
    [n, n_configs]: each configuration on PROBE_THREADS threads starts from the probe's gain (`probe`: the
    PROBE_COLUMNS value of each row, log2), the others from 0; a gain head learns the rest (`Problem.offsets`)."""
    on_probe = np.array([c.get("threads") == PROBE_THREADS for c in configs], dtype=np.float64)
    return np.outer(np.asarray(probe, dtype=np.float64) * math.log(2.0), on_probe)


def profile_row(names: Sequence[str], profile: Mapping[str, Any], module: Any) -> np.ndarray:
    """The columns `names` (of FITTED_COLUMNS, in the order a predictor recorded them) of one program: its profile's
    features (the probe's among them) and its IR."""
    unknown = [n for n in names if n not in FITTED_COLUMNS]
    if unknown:
        raise MirtuneError(f"the predictor reads profile columns this mirtune does not make: {', '.join(unknown)}")
    values = dict(zip(PROFILE_COLUMNS, profile_vector(profile)))
    if any(n in IR_COLUMNS for n in names):
        values.update(zip(IR_COLUMNS, ir_vector(module)))
    if any(n in PROBE_COLUMNS for n in names):
        speedup = profile.get("one_thread_speedup")
        if speedup is None:
            raise MirtuneError("the predictor reads the thread probe, and this profile has none (a machine with one "
                               "core cannot run it)")
        values[PROBE_COLUMNS[0]] = probe_value(speedup)
    return np.array([values[n] for n in names], dtype=np.float64)
