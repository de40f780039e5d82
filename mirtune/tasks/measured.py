"""Tasks learnt from mirtune's own measurements (openmp, vectorize): a gain table read from collector Parquet.

A collector sweep writes one row per (program, input size, configuration) with a status and the median time.
`load_gain_table` turns those rows into one row per (program, input size), a *group*, and one column per
configuration, the default configuration first:

    table = load_gain_table(["datasets/openmp"], OPENMP_SPEC)
    table.speedups          # [n_groups, n_configs] default time / configuration time; NaN where it failed
    table.train_gains()     # log speedups, failures as a 10x slowdown: the target of gain heads
    share_of_oracle(table.speedups, chosen)   # per group: chosen configuration's speedup / the best one's

Groups of one application share an `app` (the program; for VF/IF kernels, the template that generated them),
so protocols can hold out whole applications (`leave_one_app_out`, `group_kfold`). A group whose default
configuration did not run cleanly has no reference and is dropped (and listed in `table.dropped`).

This module knows no head: it says what the task is (configurations, groups, gains, folds, metrics);
`mirtune.predict` fits and evaluates predictors over it.
"""

from __future__ import annotations

import hashlib
import math
import os
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from mirtune.errors import UsageError
from mirtune.paths import REPO_DIR
from mirtune.tasks.base import TaskSpec
from mirtune.embedding_cache import file_hash

FAIL_SPEEDUP = 0.1  # the training target of a configuration that crashed, hung or answered wrongly


@dataclass
class GainTable:
    """Groups x configurations of one measured task (see the module doc)."""

    spec: TaskSpec
    configs: list[dict[str, Any]]          # parameter values of each configuration; configs[0] is the default
    labels: list[str]                      # a short name of each configuration
    programs: list[str]                    # program name of each group
    sizes: list[str]                       # input size of each group
    apps: list[str]                        # application of each group (held out together)
    sources: list[Path]                    # the program source of each group
    times: np.ndarray                      # [n_groups, n_configs] median time (spec.time_column); NaN: not ok
    statuses: list[list[str]]              # status of each cell
    cv: np.ndarray                         # [n_groups, n_configs] coefficient of variation of the timed runs
    hosts: list[dict[str, Any]] = field(default_factory=list)  # distinct hosts the rows were measured on
    dropped: list[str] = field(default_factory=list)           # groups left out, with the reason
    context: np.ndarray | None = None      # [n_groups, n_context] context that is not in the IR (devmap's launch)
    warmups: np.ndarray | None = None      # [n_groups, n_configs] the cell's first untimed run (s); NaN: none

    @property
    def speedups(self) -> np.ndarray:
        """Default time / configuration time, [n_groups, n_configs]; NaN where the configuration failed."""
        return self.times[:, :1] / self.times

    def train_gains(self) -> np.ndarray:
        """Log speedups with failures counted as a FAIL_SPEEDUP slowdown: finite targets for gain heads."""
        s = self.speedups
        return np.log(np.where(np.isfinite(s), s, FAIL_SPEEDUP))

    def labels_best(self) -> np.ndarray:
        """The index of the fastest configuration of each group."""
        return np.nanargmax(self.speedups, axis=1)

    def app_ids(self) -> np.ndarray:
        """An integer id per group's application, in order of first appearance."""
        index: dict[str, int] = {}
        return np.array([index.setdefault(a, len(index)) for a in self.apps])

    def __len__(self) -> int:
        return len(self.programs)

    def subset(self, rows: Sequence[int], reason: str = "") -> "GainTable":
        """The table restricted to the groups `rows`, in that order; the others are added to `dropped` with
        `reason` when one is given."""
        import dataclasses

        rows = [int(i) for i in rows]
        pick = lambda xs: [xs[i] for i in rows]  # noqa: E731
        left = sorted(set(range(len(self))) - set(rows))
        dropped = self.dropped + [f"{self.programs[i]} {self.sizes[i]}: {reason}" for i in left] if reason \
            else list(self.dropped)
        return dataclasses.replace(self, programs=pick(self.programs), sizes=pick(self.sizes), apps=pick(self.apps),
                                   sources=pick(self.sources), times=self.times[rows], statuses=pick(self.statuses),
                                   cv=self.cv[rows], dropped=dropped,
                                   context=None if self.context is None else self.context[rows],
                                   warmups=None if self.warmups is None else self.warmups[rows])


def chosen_speedups(speedups: np.ndarray, chosen: Sequence[int], rows: Sequence[int] | None = None) -> np.ndarray:
    """Speedup over the default of the chosen configuration of each row (0 where it failed)."""
    rows = np.arange(len(speedups)) if rows is None else np.asarray(rows)
    s = speedups[rows, np.asarray(chosen)]
    return np.where(np.isfinite(s), s, 0.0)


def share_of_oracle(speedups: np.ndarray, chosen: Sequence[int], rows: Sequence[int] | None = None) -> np.ndarray:
    """Best time / chosen configuration's time for each row: 1 is the oracle, 0 a failed configuration."""
    rows = np.arange(len(speedups)) if rows is None else np.asarray(rows)
    return chosen_speedups(speedups, chosen, rows) / np.nanmax(speedups[rows], axis=1)


def geomean(values: Sequence[float], floor: float = 1e-3) -> float:
    """Geometric mean (values below `floor`, a failed choice, count as `floor`)."""
    v = np.maximum(np.asarray(values, dtype=np.float64), floor)
    return float(np.exp(np.log(v).mean())) if len(v) else float("nan")


def best_fixed(speedups: np.ndarray, rows: Sequence[int]) -> int:
    """The one configuration with the best geometric-mean share of the oracle over `rows` (code-free)."""
    rows = np.asarray(rows)
    shares = np.stack([share_of_oracle(speedups, np.full(len(rows), c), rows) for c in range(speedups.shape[1])])
    return int(np.argmax(np.log(np.maximum(shares, 1e-3)).mean(axis=1)))


def best_fixed_per_group(speedups: np.ndarray, outer: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """For every (train, test) fold, the `best_fixed` configuration of its training rows, given to its test rows:
    the code-free baseline of each held-out group."""
    fixed = np.zeros(len(speedups), dtype=int)
    for tr, te in outer:
        fixed[te] = best_fixed(speedups, tr)
    return fixed


def leave_one_app_out(apps: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """(train rows, test rows, app) for every application: all of its groups are held out together."""
    apps = np.asarray(apps)
    return [(np.flatnonzero(apps != a), np.flatnonzero(apps == a), str(a)) for a in dict.fromkeys(apps.tolist())]


def group_kfold(rows: np.ndarray, apps: Sequence[str], n_splits: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """k-fold over `rows` that never splits one application's groups between train and validation."""
    apps = np.asarray(apps)
    rows = np.asarray(rows)
    names = sorted(set(apps[rows].tolist()))
    np.random.RandomState(seed).shuffle(names)
    parts = [set(p) for p in np.array_split(np.array(names, dtype=object), min(n_splits, len(names))) if len(p)]
    out = []
    for part in parts:
        va = rows[np.isin(apps[rows], list(part))]
        tr = rows[~np.isin(apps[rows], list(part))]
        if len(va) and len(tr):
            out.append((tr, va))
    return out


# ------------------------------------------------------------------------------------------- loading

def parquet_files(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """The Parquet part files of the given files or folders; UsageError when a path is missing or holds none."""
    files: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError("no such file or directory", str(p))
        found = sorted(p.rglob("*.parquet")) if p.is_dir() else [p]
        if not found:
            raise UsageError("no Parquet files (collector output) here", str(p))
        files += found
    return files


def oldest_first(df):
    """Rows in the order they were measured, so that where several rows measure the same thing the last, the
    latest, wins: by `timestamp`, rows with the same stamp (and every row of a table without the column) in the
    order they were read (part files by name). Every reader of collector rows keeps the last row of a key."""
    return df.sort_values("timestamp", kind="stable") if "timestamp" in df.columns else df


def read_rows(paths: Sequence[str | os.PathLike], sweep: str):
    """All rows of `sweep` in the Parquet files under `paths`, as one DataFrame."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    frames = []
    for f in parquet_files(paths):
        try:
            frames.append(pq.read_table(f).to_pandas())
        except (OSError, pa.ArrowException) as exc:
            raise UsageError(f"not a readable Parquet file: {exc}", str(f)) from None
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if "sweep" not in df.columns or not (df["sweep"] == sweep).any():
        found = sorted(set(df["sweep"].dropna())) if "sweep" in df.columns else []
        raise UsageError(f"no {sweep} measurements in {', '.join(map(str, paths))}"
                         + (f" (found: {', '.join(found)})" if found else ""))
    return df[df["sweep"] == sweep].reset_index(drop=True)


def find_source(program_path: str, sha256: str, search: Sequence[str | os.PathLike] = ()) -> Path:
    """The program source a row was measured on: its recorded path, else a file of the same name and the same
    sha256 in `search` or at the same place under this repository (rows written on another machine)."""
    recorded = Path(program_path)
    candidates = [Path(d) / recorded.name for d in search]
    parts = recorded.parts
    for top in ("collectors", "benchmarks"):  # the repository's program folders, wherever the copy measured was
        if top in parts:
            candidates.append(REPO_DIR.joinpath(*parts[parts.index(top):]))
    candidates.append(recorded)
    for c in candidates:
        if c.is_file() and file_hash(c) == sha256:
            return c
    raise UsageError(f"cannot find the source of {recorded.name} with the measured content (sha256 "
                     f"{sha256[:12]}); pass the folder holding it with --programs")


def _value(v: Any) -> Any:
    """A Parquet cell as plain Python (NaN -> None, numpy scalars -> int/float)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return None if math.isnan(f) else int(f) if f.is_integer() else f
    return v


def row_config(row: dict[str, Any], spec: TaskSpec) -> tuple[str, dict[str, Any]]:
    """(label, parameter values) of the configuration a collector row measured; the default has no values."""
    if bool(row["is_default"]):
        return spec.default_label, {}
    cfg = {c: _value(row[c]) for c in spec.config_columns}
    return spec.label(cfg), cfg


def load_gain_table(paths: Sequence[str | os.PathLike], spec: TaskSpec,
                    program_dirs: Sequence[str | os.PathLike] = ()) -> GainTable:
    """The gain table of `spec`'s task from the collector Parquet under `paths` (see the module doc)."""
    df = read_rows(paths, spec.sweep)
    time = spec.time_column
    missing = [c for c in ("program", "program_path", "program_sha256", "input_size", "is_default", "status",
                           time, *spec.config_columns) if c not in df.columns]
    if missing:
        raise UsageError(f"{spec.sweep} rows lack the column(s) {', '.join(missing)}")
    # the latest row of a cell wins (the loop below overwrites); a cell, not a point id (mirtune.measure.records.read_rows):
    # the point measured on two hosts is one point id but two groups, since datasets from several machines mix
    df = oldest_first(df)
    configs: dict[str, dict[str, Any]] = {}
    cells: dict[tuple[str, str, str], dict[str, tuple[float, str, float, float]]] = {}
    meta: dict[tuple[str, str, str], dict[str, Any]] = {}
    for row in df.to_dict("records"):
        # one group per host too: the same program measured on two machines is two groups, never one whose
        # configurations mix the machines' times (by the CPU's tag, model and flags, where rows have one: VMs of one
        # model name differ, e.g. an AMD EPYC with AVX-512 and one without)
        host = "|".join(v if isinstance(v, str) else "" for v in (row.get("host_cpu_model"), row.get("host_cpu_tag")))
        key = (str(row["program"]), str(row["program_sha256"]), size_key(row), host)
        label, cfg = row_config(row, spec)
        configs.setdefault(label, cfg)
        seconds = _value(row[time])
        ok = row["status"] == "ok" and seconds is not None and float(seconds) > 0
        cv = row.get("cv")
        if cv is None and row.get("reported") is not None:  # rows stored without it (scripts/merge_gpu_rows.py)
            cv = spread([float(t) for t in row["reported"]])
        cells.setdefault(key, {})[label] = (float(seconds) if ok else float("nan"), str(row["status"]),
                                            float(cv) if cv is not None and np.isfinite(cv) else float("nan"),
                                            _first_warmup(row) if ok else float("nan"))
        meta.setdefault(key, {"row": row})
    if spec.default_label not in configs:
        raise UsageError(f"no default-configuration rows among the {spec.sweep} measurements")
    keys = sorted(cells)
    counts = {lab: sum(1 for k in keys if lab in cells[k]) for lab in configs}
    labels = [spec.default_label] + sorted((lab for lab in configs if lab != spec.default_label),
                                           key=lambda lab: _sort_key(configs[lab], spec))
    # the space: the configurations measured in at least half as many groups as the most measured one (a sweep
    # stopped part-way has measured some groups whole, one in part and perhaps the next group's default alone);
    # groups missing any of them are dropped below, not the space
    top = max((counts[lab] for lab in labels[1:]), default=0)
    labels = [lab for lab in labels if 2 * counts[lab] >= top or lab == spec.default_label]
    dropped, kept = [], []
    for k in keys:
        if any(lab not in cells[k] for lab in labels):
            dropped.append(f"{k[0]} size {k[2]}: not every configuration was measured")
        elif not np.isfinite(cells[k][spec.default_label][0]):
            dropped.append(f"{k[0]} size {k[2]}: the default configuration {cells[k][spec.default_label][1]}")
        else:
            kept.append(k)
    if not kept:
        raise UsageError(f"no {spec.sweep} program has a clean default run and every configuration measured")
    sources = {}
    for k in kept:
        r = meta[k]["row"]
        if (r["program_path"], k[1]) not in sources:
            sources[(r["program_path"], k[1])] = (spec.locate or find_source)(str(r["program_path"]), k[1],
                                                                               program_dirs)
    hosts = {}
    for k in kept:
        r = meta[k]["row"]
        host = {c[5:]: _value(r[c]) for c in r if c.startswith("host_") and not c.startswith("host_gpu_reason")}
        hosts.setdefault(tuple(sorted((a, str(b)) for a, b in host.items())), host)
    return GainTable(
        spec=spec, configs=[configs[lab] for lab in labels], labels=labels,
        programs=[k[0] for k in kept], sizes=[k[2] for k in kept],
        apps=[spec.app_of(meta[k]["row"]) for k in kept],
        sources=[sources[(meta[k]["row"]["program_path"], k[1])] for k in kept],
        times=np.array([[cells[k][lab][0] for lab in labels] for k in kept]),
        statuses=[[cells[k][lab][1] for lab in labels] for k in kept],
        cv=np.array([[cells[k][lab][2] for lab in labels] for k in kept]),
        hosts=list(hosts.values()), dropped=dropped,
        warmups=np.array([[cells[k][lab][3] for lab in labels] for k in kept]))


def _first_warmup(row: dict[str, Any]) -> float:
    """The first untimed run of a collector row (`warmup_s`), in seconds; NaN where it made none: one run of the
    configuration that its median never saw, as a probe at recommend time is one run."""
    runs = row.get("warmup_s")
    if runs is None or len(runs) == 0 or runs[0] is None or not np.isfinite(runs[0]) or runs[0] <= 0:
        return float("nan")
    return float(runs[0])


def spread(times: Sequence[float]) -> float | None:
    """Coefficient of variation (sample standard deviation / mean) of a point's timed runs; None for fewer than
    two (the collectors' `cv` column)."""
    if len(times) < 2:
        return None
    mean = statistics.fmean(times)
    return statistics.stdev(times) / mean if mean > 0 else None


def size_key(row: dict[str, Any]) -> str:
    """The input of a group: its size, and for a user's program run with arguments or inputs (rows of `mirtune
    tune` or `collect` with `--`), a short hash of that `variant`, so that two ways of running one source are
    two groups."""
    variant = row.get("variant")
    if isinstance(variant, str) and variant:
        return f"{row['input_size']}/{hashlib.sha256(variant.encode()).hexdigest()[:8]}"
    return str(row["input_size"])


def _sort_key(cfg: dict[str, Any], spec: TaskSpec) -> tuple:
    return tuple((0, v) if isinstance(v, (int, float)) else (1, str(v)) for v in (cfg.get(c) for c in spec.config_columns)
                 if v is not None)
