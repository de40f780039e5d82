"""The profile columns a predictor reads beside the static context: seven numbers from one profiled run
(`mirtune.profile.ompt.ProfileFeatures`, or a row of the datasets' profile table), counts and times on a log scale,
so that a program profiled by `recommend --profile` and the rows a predictor was fitted on give the same columns;
beside them what the run's timings cannot show, read from the IR (IR_COLUMNS: updates the threads serialise on);
and the probes (PROBES, PROBE_COLUMNS): plain runs set against one on all cores at the default configuration, the
thread probe on one thread (which says directly whether threads pay) and the schedule probe with a dynamic schedule
(whether balancing the work pays); in the datasets they are the first untimed runs of those configurations, never
part of a label. A predictor records the names it reads (`Predictor.features["profile"]`) and `profile_row` builds
them."""

from __future__ import annotations

import math
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Probe:
    """One plain run set against a plain run on all cores at the default configuration: its column (log2 of the
    default's time over the probe's: > 0 when the probe's configuration is faster), the ProfileFeatures field that
    holds that ratio, its thread count (None: all cores) and OMP_SCHEDULE (None: the default, static)."""

    column: str
    feature: str
    threads: int | None
    schedule: tuple[str, int] | None

    def starts(self, config: Mapping[str, Any], most_threads: int | None) -> bool:
        """Whether a configuration's predicted gain starts from what this probe measured: every configuration of
        the thread probe's thread count, or the schedule probe's configuration itself (`most_threads`: the most
        threads of the configurations, standing for all cores)."""
        threads = self.threads if self.threads is not None else most_threads
        if config.get("threads") != threads:
            return False
        return self.schedule is None or (config.get("schedule"), config.get("chunk")) == self.schedule

    def env(self, cores: int) -> dict[str, str]:
        """The environment of the probe's run on a machine of `cores` cores."""
        env = {"OMP_NUM_THREADS": str(self.threads if self.threads is not None else cores)}
        if self.schedule is not None:
            env["OMP_SCHEDULE"] = f"{self.schedule[0]},{self.schedule[1]}"
        return env


def most_threads(configs: Sequence[Mapping[str, Any]]) -> int:
    """The most threads any configuration runs: what stands for all cores in a gain table's configurations."""
    return max((c.get("threads") or 0 for c in configs), default=0)


# One thread against all cores: what neither the profile nor the IR can tell apart, contended atomics from atomics
# spread over a large grid (docs/profile.md, particle_deposit and dice_league), it measures.
THREAD_PROBE = Probe("log2_one_thread_speedup", "one_thread_speedup", threads=1, schedule=None)
# All cores with guided, 1 against the default static schedule: whether balancing the work pays, which decides most
# of what is left once the thread count is right (docs/profile.md, the schedule probe).
SCHEDULE_PROBE = Probe("log2_guided_speedup", "guided_speedup", threads=None, schedule=("guided", 1))
PROBES = (THREAD_PROBE, SCHEDULE_PROBE)
PROBE_COLUMNS = tuple(p.column for p in PROBES)
# Plain runs of the default and of each probe at recommend time, in interleaved rounds; a probe's speedup is the
# ratio of the geometric means. One run each was 30-50% off twice on set 11 (docs/profile.md): two halve the
# variance of the log ratio, and keep the expectation of the one warm-up run per configuration the columns were
# fitted on.
PROBE_ROUNDS = 2
FITTED_COLUMNS = PROFILE_COLUMNS + IR_COLUMNS + PROBE_COLUMNS  # what `mirtune fit --profiles` fits a predictor on


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


def probe_value(speedup: float | None) -> float:
    """A probe column's value: log2 of (the default's all-cores time / the probe's time); 0 (no evidence) where
    there is no probe."""
    if speedup is None or not math.isfinite(speedup) or speedup <= 0:
        return 0.0
    return math.log2(speedup)


def probe_config(probe: Probe, configs: Sequence[Mapping[str, Any]]) -> int | None:
    """The configuration of a gain table nearest the probe's run; None if none. For the thread probe: one thread,
    static schedule, the largest chunk (one thread runs a static loop's chunks in order, as it runs the unchunked
    loop); for the schedule probe: its configuration on the table's most threads."""
    if probe.schedule is not None:
        most = most_threads(configs)
        hits = [i for i, c in enumerate(configs) if probe.starts(c, most)]
        return hits[0] if hits else None
    cands = [(c.get("chunk") or 0, i) for i, c in enumerate(configs)
             if c.get("threads") == probe.threads and c.get("schedule") in (None, "static")]
    return max(cands)[1] if cands else None


def probes_choice(profile: Mapping[str, Any], configs: Sequence[Mapping[str, Any]]) -> int:
    """The configuration a profiled run's probes alone point to, the code-free baseline of `recommend --profile`:
    of the default (index 0) and the configurations nearest the probes' runs (`probe_config`), the fastest by the
    probes' measured speedups over the default (`profile`: ProfileFeatures as a dict)."""
    pick, best = 0, 1.0
    for probe in PROBES:
        j, speedup = probe_config(probe, configs), profile.get(probe.feature)
        if j is not None and speedup is not None and math.isfinite(speedup) and speedup > best:
            pick, best = j, float(speedup)
    return pick


def probe_column(table: Any) -> np.ndarray:
    """PROBE_COLUMNS of each group of a gain table, [n, len(PROBES)], from its cells' first untimed runs
    (`GainTable.warmups`): the default's over the probe configuration's, one run each as at recommend time, and
    neither part of the medians the labels come from; 0 where either run is missing."""
    n = len(table)
    out = np.zeros((n, len(PROBES)))
    for k, probe in enumerate(PROBES):
        j = probe_config(probe, table.configs)
        if j is not None and table.warmups is not None:
            out[:, k] = [probe_value(float(r)) for r in table.warmups[:, 0] / table.warmups[:, j]]
    return out


def probe_positions(names: Sequence[str], dim: int) -> dict[Probe, int]:
    """Where each probe's column is in a feature row of width `dim` whose last columns are the profile columns
    `names` (a predictor's `features["profile"]`); the probes they do not hold are left out."""
    names = list(names)
    return {p: dim - len(names) + names.index(p.column) for p in PROBES if p.column in names}


def probe_offsets(configs: Sequence[Mapping[str, Any]], X: np.ndarray, positions: Mapping[Probe, int]) -> np.ndarray:
    """What the probes measured, as log gains over the default (natural log) of every configuration,
    [n, n_configs]: each configuration a probe `starts` begins from the probe's gain (its column of the feature
    rows X, at `positions`: log2), the others from 0; a gain head learns the rest (`Problem.offsets`)."""
    X = np.atleast_2d(np.asarray(X, dtype=np.float64))
    most = most_threads(configs)
    out = np.zeros((len(X), len(configs)))
    for probe, col in positions.items():
        on = np.array([probe.starts(c, most) for c in configs], dtype=np.float64)
        out += np.outer(X[:, col] * math.log(2.0), on)
    return out


def profile_row(names: Sequence[str], profile: Mapping[str, Any], module: Any) -> np.ndarray:
    """The columns `names` (of FITTED_COLUMNS, in the order a predictor recorded them) of one program: its profile's
    features (the probe's among them) and its IR."""
    unknown = [n for n in names if n not in FITTED_COLUMNS]
    if unknown:
        raise MirtuneError(f"the predictor reads profile columns this mirtune does not make: {', '.join(unknown)}")
    values = dict(zip(PROFILE_COLUMNS, profile_vector(profile)))
    if any(n in IR_COLUMNS for n in names):
        values.update(zip(IR_COLUMNS, ir_vector(module)))
    for probe in PROBES:
        if probe.column in names:
            speedup = profile.get(probe.feature)
            if speedup is None:
                raise MirtuneError(f"the predictor reads the probe {probe.column}, and this profile has none (a "
                                   "machine with one core cannot run it)")
            values[probe.column] = probe_value(speedup)
    return np.array([values[n] for n in names], dtype=np.float64)
