"""OpenCL thread coarsening (Magni et al. PACT'14 data as packaged by DeepTune PACT'17; MIREncoder Table 2).

Data: <data>/thread-coarsening (see its PROVENANCE.md): 17 kernels, runtimes at coarsening factors
{1, 2, 4, 8, 16, 32} on four GPUs (Cypress, Tahiti, Fermi, Kepler); one LLVM IR file per kernel.

Features: the frozen embedding of the kernel's IR only (the code-only setting of DeepTune and NCC; the
platform is not a feature, one head per platform). Label: the index of the fastest measured factor.

Protocol (as DeepTune / NCC): per platform, leave one kernel out over the 17 kernels sorted by name (fold j =
j-th kernel). Head hyper-parameters come from an inner 3-fold CV over the 16 training kernels (validation
score = mean speedup), via Ray Tune (`mirtune.predict.select`); each figure is the mean and std over the head
seeds. Metric: speedup = runtime(factor 1) / runtime(predicted factor) on that platform; the arithmetic mean over
the 17 kernels per platform (as the prior-work tables), and the average of the four platform means.

Missing runtimes: a kernel is measured only up to some factor (blackscholes 8; 11 kernels 16; five kernels 32)
and nbody has no factor-16 runtime on Fermi and Kepler (NaN). A predicted factor is clamped to the largest
factor <= the prediction that has a runtime for that kernel on that platform. This is DeepTune's rule ("clamp to
the largest factor measured for the kernel") extended to the NaN hole, which no prior prediction ever hit
(none predicts 16 for nbody on NVIDIA). Labels are the argmin over the measured runtimes; they equal
`pact-2014-oracles.csv` (checked by the tests).

mt / mtLocal: their IR files (and sources) are byte-identical while their oracle factors differ on every
platform. Both stay in the protocol as separate kernels, as in all prior work, so results compare; when one is
held out, the other (identical features, different label) is in the training set, and any code-only model
gives both the same factor. `fixed_factor_baseline` is a code-free reference under the same protocol (the one
factor that is best on the other 16 kernels, applied to the held-out one). `code_only_ceiling` reports the best mean speedup a code-only model can reach
(the oracle, except that each group of identical files gets its best common factor) next to the oracle.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from mirtune.errors import MirtuneError, UsageError
from mirtune.tasks.base import PUBLISHED as PUBLISHED_KIND
from mirtune.tasks.base import Task
from mirtune.tasks.csvdata import read_csv
from mirtune.tasks.protocol import Problem, kfold

FACTORS = (1, 2, 4, 8, 16, 32)
PLATFORMS = ("Cypress", "Tahiti", "Fermi", "Kepler")
PLATFORM_NAMES = {"Cypress": "AMD Radeon HD 5900", "Tahiti": "AMD Tahiti 7970", "Fermi": "NVIDIA GTX 480",
                  "Kepler": "NVIDIA Tesla K20c"}

# Published mean speedups (Cypress, Tahiti, Fermi, Kepler, average), as in thread-coarsening/PROVENANCE.md.
PUBLISHED: list[dict[str, Any]] = [
    {"model": "Magni et al.", "values": (1.21, 1.01, 0.86, 0.94, 1.005), "source": "DeepTune PACT'17"},
    {"model": "DeepTune", "values": (1.10, 1.05, 1.10, 0.99, 1.06), "source": "DeepTune PACT'17"},
    {"model": "DeepTune-TL", "values": (1.17, 1.23, 1.14, 0.93, 1.1175), "source": "DeepTune PACT'17"},
    {"model": "NCC / inst2vec", "values": (1.25, 1.07, 1.02, 1.03, 1.0925), "source": "spcl/ncc README"},
    {"model": "IR2Vec Symbolic", "values": (1.265, 1.281, 1.256, 1.153, 1.239),
     "source": "IR2Vec notebook (one joint model, 68 folds; not strictly comparable)"},
    {"model": "IR2Vec Flow-Aware", "values": (1.264, 1.295, 1.256, 1.148, 1.241),
     "source": "IR2Vec notebook (one joint model, 68 folds; not strictly comparable)"},
    {"model": "MIREncoder (paper)", "values": (1.29, 1.30, 1.26, 1.16, 1.24),
     "source": "PACT'24 Table 2 (geometric mean)"},
]
PRIOR_PREDICTIONS = ("ir2vec_rerun_magni_tf.csv", "ir2vec_rerun_deeptune_tf.csv", "ir2vec_rerun_deeptune_tl_tf.csv",
                     "ir2vec_rerun_ncc_fix_tf.csv")


# ----------------------------------------------------------------------------------------------- data

class CoarseningData:
    """Kernels (sorted), their IR files, and runtimes[platform] = array [n_kernels, len(FACTORS)] (NaN = none)."""

    def __init__(self, data: Path) -> None:
        root = Path(data) / "thread-coarsening"
        if not (root / "pact-2014-runtimes.csv").is_file():
            raise UsageError(f"no thread-coarsening data in {root} (expected pact-2014-runtimes.csv)")
        self.root = root
        rt = read_csv(root / "pact-2014-runtimes.csv", usecols=["kernel", "cf"] + [f"runtime_{p}" for p in PLATFORMS])
        if rt[["kernel", "cf"]].isna().any().any():
            raise MirtuneError("rows without a kernel or a factor (truncated or corrupt?)",
                               str(root / "pact-2014-runtimes.csv"))
        self.kernels: list[str] = sorted(rt.kernel.unique())
        self.ir_paths = [root / "kernels_ir" / f"{k}.ll" for k in self.kernels]
        missing = [p for p in self.ir_paths if not p.is_file()]
        if missing:
            raise MirtuneError("thread-coarsening IR file missing", str(missing[0]))
        kidx = {k: i for i, k in enumerate(self.kernels)}
        fidx = {f: j for j, f in enumerate(FACTORS)}
        self.runtimes: dict[str, np.ndarray] = {}
        for p in PLATFORMS:
            table = np.full((len(self.kernels), len(FACTORS)), np.nan)
            for k, cf, v in zip(rt.kernel, rt.cf, rt[f"runtime_{p}"]):
                table[kidx[k], fidx[int(cf)]] = v
            if np.isnan(table[:, 0]).any():
                raise MirtuneError(f"thread-coarsening: a kernel has no factor-1 runtime on {p}")
            self.runtimes[p] = table
        oracles = read_csv(root / "pact-2014-oracles.csv")
        if "kernel" not in oracles.columns or set(self.kernels) - set(oracles.kernel):
            raise MirtuneError("oracles for some kernels are missing (truncated or corrupt?)",
                               str(root / "pact-2014-oracles.csv"))
        self.oracle_csv = oracles.set_index("kernel").loc[self.kernels]

    def labels(self, platform: str) -> np.ndarray:
        """Index into FACTORS of the fastest measured factor, per kernel."""
        return np.nanargmin(self.runtimes[platform], axis=1)

    def identical_groups(self) -> list[list[int]]:
        """Kernels whose IR files are byte-identical (e.g. mt and mtLocal), as index groups of size > 1."""
        by_hash: dict[str, list[int]] = {}
        for i, p in enumerate(self.ir_paths):
            by_hash.setdefault(hashlib.sha256(p.read_bytes()).hexdigest(), []).append(i)
        return [g for g in by_hash.values() if len(g) > 1]


# ---------------------------------------------------------------------------------------------- metrics

def effective_factor_index(runtimes_row: np.ndarray, predicted: int) -> int:
    """The largest factor index <= `predicted` that has a runtime (factor 1 always has one)."""
    for j in range(int(predicted), -1, -1):
        if not np.isnan(runtimes_row[j]):
            return j
    raise MirtuneError("a kernel has no runtime at factor 1")


def speedup(runtimes_row: np.ndarray, predicted: int) -> float:
    """runtime(factor 1) / runtime(predicted factor, clamped to a measured one)."""
    return float(runtimes_row[0] / runtimes_row[effective_factor_index(runtimes_row, predicted)])


def speedups(runtimes: np.ndarray, predicted: Sequence[int], rows: Sequence[int] | None = None) -> np.ndarray:
    rows = np.arange(len(runtimes)) if rows is None else np.asarray(rows)
    return np.array([speedup(runtimes[r], p) for r, p in zip(rows, predicted)])


def factor_speedups(runtimes: np.ndarray) -> np.ndarray:
    """[n_kernels, len(FACTORS)]: the speedup each factor would score (clamped as `speedup`); gain heads learn it."""
    return np.array([[speedup(row, j) for j in range(len(FACTORS))] for row in runtimes])


def oracle_speedups(runtimes: np.ndarray) -> np.ndarray:
    return runtimes[:, 0] / np.nanmin(runtimes, axis=1)


def code_only_ceiling(runtimes: np.ndarray, groups: Sequence[Sequence[int]]) -> float:
    """Mean oracle speedup when each group of identical kernels must share one factor (its best common one)."""
    best, gains = oracle_speedups(runtimes), factor_speedups(runtimes)
    for g in groups:
        best[list(g)] = gains[list(g)].mean(axis=0).max()
    return float(best.mean())


def fixed_factor_baseline(runtimes: np.ndarray, held: Sequence[int] | None = None) -> float:
    """A code-free reference under the same protocol: for each held-out kernel, the one factor with the best
    mean speedup over the OTHER kernels, applied to it; the mean speedup over the held-out kernels."""
    gains = factor_speedups(runtimes)
    held = range(len(runtimes)) if held is None else held
    return float(np.mean([gains[k, np.delete(gains, k, axis=0).mean(axis=0).argmax()] for k in held]))


def _speedup_score(runtimes: np.ndarray, idx: np.ndarray, pred: np.ndarray) -> float:
    return float(speedups(runtimes, pred, idx).mean())


def _kfold_inner(train_idx: np.ndarray, n_inner: int, seed: int):
    return kfold(train_idx, n_inner, seed)


# ------------------------------------------------------------------------------------------- evaluation

def make_problem(data: CoarseningData, X: np.ndarray, platform: str, kernels: Sequence[str] | None = None):
    """Leave-one-kernel-out `Problem` for one platform (optionally only holding out the named kernels)."""
    held = list(range(len(data.kernels))) if kernels is None else [data.kernels.index(k) for k in kernels]
    n = len(data.kernels)
    outer = [(np.array([i for i in range(n) if i != j]), np.array([j])) for j in held]
    return Problem(name=platform, X=X, y=data.labels(platform), n_classes=len(FACTORS), outer=outer,
                   inner_splits=_kfold_inner, score=functools.partial(_speedup_score, data.runtimes[platform]),
                   fold_ids=held, gains=factor_speedups(data.runtimes[platform]))


def make_joint_problem(data: CoarseningData, X: np.ndarray, kernels: Sequence[str] | None = None):
    """IR2Vec's protocol: ONE head over all (platform, kernel) rows, features = embedding ++ one-hot platform,
    leaving out one row at a time (68 folds). The held-out kernel's code stays in training through the other
    three platforms, so figures are not comparable with leave-one-kernel-out (see PROVENANCE.md)."""
    n, n_p = len(data.kernels), len(PLATFORMS)
    Xj = np.vstack([np.hstack([X, np.tile(np.eye(n_p)[i], (n, 1))]) for i in range(n_p)])
    yj = np.concatenate([data.labels(p) for p in PLATFORMS])
    rt = np.vstack([data.runtimes[p] for p in PLATFORMS])
    held = list(range(n)) if kernels is None else [data.kernels.index(k) for k in kernels]
    rows = [i * n + k for i in range(n_p) for k in held]
    outer = [(np.array([r for r in range(n_p * n) if r != t]), np.array([t])) for t in rows]
    return Problem(name="joint", X=Xj, y=yj, n_classes=len(FACTORS), outer=outer, inner_splits=_kfold_inner,
                   score=functools.partial(_speedup_score, rt), fold_ids=rows, keep_columns=n_p,
                   gains=factor_speedups(rt))


PROTOCOLS = ("loko", "ir2vec")


# ------------------------------------------------------------------------------------------- prior work

def prior_from_predictions(data_root: Path) -> list[dict[str, Any]]:
    """IR2Vec's re-runs of prior models (per-kernel predicted factors), re-scored with `speedup` here."""
    data = CoarseningData(data_root)
    names = {v: k for k, v in PLATFORM_NAMES.items()}
    out = []
    for fname in PRIOR_PREDICTIONS:
        path = data.root / "prior_results" / fname
        if not path.is_file():
            continue
        pr = read_csv(path)
        model = {"NCC_threadcoarsening": "NCC"}.get(str(pr.Model.iloc[0]), str(pr.Model.iloc[0]))
        row: dict[str, Any] = {"model": f"{model} (IR2Vec re-run)", "source": f"{fname}, re-scored"}
        for plat_name, g in pr.groupby("Platform"):
            p = names.get(plat_name)
            if p is None:
                continue
            idx = [data.kernels.index(k) for k in g.Kernel]
            pred = [FACTORS.index(int(cf)) for cf in g["Predicted-CF"]]
            row[p] = float(speedups(data.runtimes[p], pred, idx).mean())
        if all(p in row for p in PLATFORMS):
            row["average"] = float(np.mean([row[p] for p in PLATFORMS]))
        out.append(row)
    return out


# ------------------------------------------------------------------------------------------- as a predictor task

NAME = "coarsening"
CONTEXT: tuple[str, ...] = ()


def _factor_label(cfg: dict[str, Any]) -> str:
    return f"factor={cfg['factor']}"


def gain_table(data: Path, platform: str):
    """One GPU's runtimes as a gain table for `mirtune fit`: the six factors, factor 1 (no coarsening) first as the
    default; factors never measured for a kernel count as failed configurations."""
    from mirtune.tasks.measured import GainTable, TaskSpec

    if platform not in PLATFORMS:
        raise UsageError(f"unknown coarsening platform {platform!r}; choose from {', '.join(PLATFORMS)}")
    d = CoarseningData(data)
    spec = TaskSpec(name=NAME, sweep="coarsening", config_columns=("factor",), app_of=lambda row: row["kernel"],
                    label=_factor_label, default_label="factor=1")
    times = d.runtimes[platform]
    return GainTable(spec=spec, configs=[{"factor": f} for f in FACTORS], labels=[f"factor={f}" for f in FACTORS],
                     programs=list(d.kernels), sizes=["-"] * len(d.kernels), apps=list(d.kernels),
                     sources=list(d.ir_paths), times=times,
                     statuses=[["ok" if np.isfinite(v) else "unmeasured" for v in row] for row in times],
                     cv=np.full(times.shape, np.nan), hosts=[{"gpu_model": PLATFORM_NAMES[platform]}])


class CoarseningTask(Task):
    name, kind, platforms = NAME, PUBLISHED_KIND, PLATFORMS
    data_folder = "thread-coarsening"
    parameter_names, context_names = ("factor",), CONTEXT

    def label(self, config):
        return _factor_label(config) if config else "default"

    def how_to_apply(self, params, is_default, source=None, context=None):
        if is_default:
            return ["keep one work-item per output element (coarsening factor 1)"]
        return [f"coarsen the kernel by {params['factor']}: each work-item computes {params['factor']} outputs and "
                f"the global size shrinks by {params['factor']} (Magni et al.'s transformation)"]

    def gain_table(self, data, program_dirs=(), platform=None):
        return gain_table(Path(data[0]), platform)


TASK = CoarseningTask()
