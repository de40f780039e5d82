"""Heterogeneous device mapping (Grewe et al. CGO'13 / DeepTune PACT'17 data; MIREncoder Table 1).

Data: <data>/devmap (see its PROVENANCE.md). 680 rows (kernel x input size) per platform, AMD Tahiti 7970 and
NVIDIA GTX 970; the label is the oracle device (GPU = 1, CPU = 0).

Features: the frozen embedding of the kernel's IR (row -> file by `kernels_ir_map_680.csv`, the patched lavaMD
copy from `kernels_ir_patched/` where one exists) ++ log1p(transfer bytes) and log1p(work-group size), the two
dynamic features prior work adds. The head standardises every column on its training rows.

Protocol: the 10 outer folds of column `fold_deeptune_ncc_seed204` of `folds/devmap_folds_680.csv` (DeepTune's and
NCC's StratifiedKFold(10, shuffle, 204) with scikit-learn < 0.22; `deeptune_folds` re-derives it and the tests
check both against each other), the same for both platforms. Head hyper-parameters come from inner stratified
3-fold CV on the training folds only (validation score = accuracy), via Ray Tune (`mirtune.predict.select`).

Metrics, over all 680 test predictions of one head seed, then mean and std over the seeds:
- accuracy (a fraction);
- F1 of the GPU class (GPU = positive); `f1_macro` is the mean of the CPU-class and GPU-class F1;
- speedup: per row runtime(static device) / runtime(predicted device), arithmetic mean; the static mapping is
  CPU on AMD and GPU on NVIDIA (as DeepTune, NCC, IR2Vec); `oracle_speedup` is the same for the oracle device.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from mirtune.errors import MirtuneError, UsageError
from mirtune.tasks.base import PUBLISHED as PUBLISHED_KIND
from mirtune.tasks.base import Task
from mirtune.tasks.csvdata import read_csv
from mirtune.tasks.protocol import Problem, stratified_kfold

PLATFORMS = {"amd": "AMD Tahiti 7970", "nvidia": "NVIDIA GTX 970"}
STATIC_DEVICE = {"amd": "CPU", "nvidia": "GPU"}
FOLD_COLUMN = "fold_deeptune_ncc_seed204"
N_FOLDS = 10
DEVICES = ("CPU", "GPU")  # label 0, 1

# Published numbers (accuracy %, speedup over static), as listed in devmap/PROVENANCE.md.
PUBLISHED: list[dict[str, Any]] = [
    {"model": "Static mapping", "amd": (58.82, 1.00), "nvidia": (56.91, 1.00), "source": "DeepTune notebook"},
    {"model": "Grewe et al.", "amd": (73.38, 2.91), "nvidia": (72.94, 1.26), "source": "DeepTune notebook"},
    {"model": "DeepTune", "amd": (83.68, 3.34), "nvidia": (80.29, 1.41), "source": "DeepTune notebook"},
    {"model": "NCC / inst2vec", "amd": (82.79, 3.42), "nvidia": (81.76, 1.39), "source": "spcl/ncc README"},
    {"model": "IR2Vec Symbolic", "amd": (91.77, 3.48), "nvidia": (86.98, 1.45),
     "source": "IR2Vec DevMap.ipynb (XGBoost, seed-104 folds, 669 rows)"},
    {"model": "IR2Vec Flow-Aware", "amd": (91.17, 3.45), "nvidia": (88.32, 1.45),
     "source": "IR2Vec DevMap.ipynb (XGBoost, seed-104 folds, 669 rows)"},
    {"model": "Perfograph", "amd": (94.0, None), "nvidia": (90.0, None), "source": "perfograph README (no fixed folds)"},
    {"model": "MIREncoder (paper)", "amd": (93.6, None), "nvidia": (93.7, None), "source": "PACT'24 Table 1"},
]
# Cached per-row predictions of prior work, re-scored here with this module's metric code.
PRIOR_PREDICTIONS = [
    ("deeptune_cgo17_original_predictions.csv", "Model", "predicted_mapping", "original predictions"),
    ("ir2vec_rerun_ncc_fix_DM.csv", "Model", "Predicted Mapping", "IR2Vec re-run"),
]


# ----------------------------------------------------------------------------------------------- data

def devmap_dir(data: Path) -> Path:
    root = Path(data) / "devmap"
    if not (root / "cgo17-amd.csv").is_file():
        raise UsageError(f"no device-mapping data in {root} (expected cgo17-amd.csv; see PROVENANCE.md)")
    return root


def load_platform(data: Path, platform: str) -> pd.DataFrame:
    """The 680 rows of one platform with `label`, `fold` and `ir_path` columns added (file order)."""
    if platform not in PLATFORMS:
        raise UsageError(f"unknown platform {platform!r}; choose from {', '.join(PLATFORMS)}")
    root = devmap_dir(data)
    df = read_csv(root / f"cgo17-{platform}.csv", index_col=0)
    df = df.drop(columns=[c for c in ("seq", "src") if c in df.columns]).reset_index(drop=True)
    folds = read_csv(root / "folds" / "devmap_folds_680.csv")
    folds = folds[folds.platform == platform].sort_values("row").reset_index(drop=True)
    irmap = read_csv(root / "kernels_ir_map_680.csv").sort_values("row").reset_index(drop=True)
    if len(df) != len(folds) or len(df) != len(irmap):
        sizes = {root / f"cgo17-{platform}.csv": len(df), root / "folds" / "devmap_folds_680.csv": len(folds),
                 root / "kernels_ir_map_680.csv": len(irmap)}
        short = min(sizes, key=sizes.get)
        raise MirtuneError(f"devmap {platform}: {len(df)} data rows but {len(folds)} fold rows and {len(irmap)} IR "
                           f"rows; this file has the fewest (truncated?)", str(short))
    if not ((folds.benchmark.values == df.benchmark.values).all() and (irmap.benchmark.values == df.benchmark.values).all()
            and (folds.oracle.values == df.oracle.values).all()):
        raise MirtuneError(f"devmap {platform}: fold/IR map rows do not line up with cgo17-{platform}.csv")
    df["fold"] = folds[FOLD_COLUMN].astype(int).values
    df["label"] = (df.oracle == "GPU").astype(int)
    patched = root / "kernels_ir_patched"
    df["ir_path"] = [str(patched / Path(f).name) if (patched / Path(f).name).is_file() else str(root / f)
                     for f in irmap.ir_file]
    return df


def deeptune_folds(labels: Sequence[int], n_splits: int = N_FOLDS, seed: int = 204) -> np.ndarray:
    """StratifiedKFold(n_splits, shuffle=True, random_state=seed) as scikit-learn < 0.22 assigned folds.

    For each class (ascending) its rows in order get positions 0..n_c-1; `arange(max(n_c, n_splits))` is shuffled
    by ONE RandomState(seed) shared by the classes, then cut into n_splits consecutive chunks (the first
    n % n_splits one longer); a row's fold is the chunk that holds its position (see devmap/PROVENANCE.md).
    """
    labels = np.asarray(labels)
    rng = np.random.RandomState(seed)
    fold = np.full(len(labels), -1, dtype=int)
    for cls in np.unique(labels):
        rows = np.flatnonzero(labels == cls)
        n = len(rows)
        perm = np.arange(max(n, n_splits))
        rng.shuffle(perm)
        sizes = np.full(n_splits, n // n_splits, dtype=int)
        sizes[: n % n_splits] += 1
        start = 0
        for k, size in enumerate(sizes):
            for pos in perm[start:start + size]:
                if pos < n:
                    fold[rows[pos]] = k
            start += size
    return fold


N_CONTEXT = 2  # the trailing feature columns that are not the embedding
GREWE_COLUMNS = ("comp", "rational", "mem", "localmem", "coalesced", "atomic")


def grewe_features(df: pd.DataFrame) -> np.ndarray:
    """log1p of Grewe et al.'s six static kernel counts (compute and rational operations, global and local memory
    accesses, coalesced accesses, atomics): [n, 6], the hand-made baseline for the embeddings."""
    return np.log1p(df[list(GREWE_COLUMNS)].to_numpy(dtype=np.float64))


def launch_features(transfer: Any, wgsize: Any) -> np.ndarray:
    """log1p(transfer bytes), log1p(work-group size): [..., 2] (CONTEXT)."""
    return np.log1p(np.stack([np.asarray(transfer, dtype=np.float64), np.asarray(wgsize, dtype=np.float64)],
                             axis=-1))


def context_features(df: pd.DataFrame) -> np.ndarray:
    """The launch features of every row of the published data: [n, 2]."""
    return launch_features(df["transfer"].to_numpy(), df["wgsize"].to_numpy())


# ---------------------------------------------------------------------------------------------- metrics

def accuracy(y_true: Sequence[int], y_pred: Sequence[int]) -> float:
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    return float((y_true == y_pred).mean()) if len(y_true) else float("nan")


def f1(y_true: Sequence[int], y_pred: Sequence[int], positive: int = 1) -> float:
    """F1 of class `positive` (0 when it is never predicted and never true, as an undefined ratio)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    tp = int(((y_pred == positive) & (y_true == positive)).sum())
    fp = int(((y_pred == positive) & (y_true != positive)).sum())
    fn = int(((y_pred != positive) & (y_true == positive)).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0


def speedups(runtime_cpu: Sequence[float], runtime_gpu: Sequence[float], pred: Sequence[int], static: str
             ) -> np.ndarray:
    """Per row runtime(static device) / runtime(predicted device); pred 1 = GPU."""
    cpu, gpu, pred = np.asarray(runtime_cpu, float), np.asarray(runtime_gpu, float), np.asarray(pred)
    base = cpu if static == "CPU" else gpu
    return base / np.where(pred == 1, gpu, cpu)


def platform_metrics(df: pd.DataFrame, platform: str, pred: Sequence[int], rows: np.ndarray | None = None
                     ) -> dict[str, float]:
    """accuracy, f1 (GPU class), f1_macro, speedup and oracle_speedup of predictions for `rows` (default all)."""
    rows = np.arange(len(df)) if rows is None else np.asarray(rows)
    pred = np.asarray(pred)
    sub = df.iloc[rows]
    y = sub.label.to_numpy()
    static = STATIC_DEVICE[platform]
    sp = speedups(sub.runtime_cpu, sub.runtime_gpu, pred, static)
    osp = speedups(sub.runtime_cpu, sub.runtime_gpu, y, static)
    return {"accuracy": accuracy(y, pred), "f1": f1(y, pred, 1), "f1_macro": (f1(y, pred, 1) + f1(y, pred, 0)) / 2,
            "speedup": float(sp.mean()), "oracle_speedup": float(osp.mean()), "n": int(len(rows))}


def _accuracy_score(labels: np.ndarray, idx: np.ndarray, pred: np.ndarray) -> float:
    return accuracy(labels[idx], pred)


def _stratified_inner(labels: np.ndarray, train_idx: np.ndarray, n_inner: int, seed: int):
    return stratified_kfold(train_idx, labels, n_inner, seed)


# ------------------------------------------------------------------------------------------- evaluation

def make_problem(df: pd.DataFrame, X: np.ndarray, platform: str, folds: Sequence[int] | None = None):
    """The `Problem` for one platform: outer folds = the published folds (or a subset of them)."""
    fold = df.fold.to_numpy()
    wanted = list(range(N_FOLDS)) if folds is None else sorted(set(int(f) for f in folds))
    bad = [f for f in wanted if f not in set(fold.tolist())]
    if bad:
        raise UsageError(f"devmap has folds 0..{N_FOLDS - 1}; no fold {bad[0]}")
    outer = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in wanted]
    labels = df.label.to_numpy()
    static = STATIC_DEVICE[platform]
    gains = np.stack([speedups(df.runtime_cpu, df.runtime_gpu, np.full(len(df), d), static) for d in (0, 1)], axis=1)
    return Problem(name=platform, X=X, y=labels, n_classes=2, outer=outer,
                   inner_splits=functools.partial(_stratified_inner, labels),
                   score=functools.partial(_accuracy_score, labels), fold_ids=wanted,
                   keep_columns=N_CONTEXT, gains=gains)


def features(df: pd.DataFrame, embeddings: np.ndarray) -> np.ndarray:
    return np.hstack([embeddings, context_features(df)])


def summarise(values: Sequence[float]) -> tuple[float, float]:
    """(mean, standard deviation with ddof=1; 0 for one value)."""
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else 0.0


# ------------------------------------------------------------------------------------------- prior work

def prior_from_predictions(data: Path) -> list[dict[str, Any]]:
    """Prior models' cached per-row predictions re-scored with `platform_metrics` (same code as ours)."""
    root = devmap_dir(data)
    frames = {p: load_platform(data, p) for p in PLATFORMS}
    names = {v: k for k, v in PLATFORMS.items()}
    out = []
    for fname, model_col, pred_col, how in PRIOR_PREDICTIONS:
        path = root / "prior_results" / fname
        if not path.is_file():
            continue
        pr = read_csv(path)
        for model, group in pr.groupby(model_col, sort=False):
            label = {"ncc_devmap": "NCC (IR2Vec re-run, ncc_fix)"}.get(str(model), str(model))
            row: dict[str, Any] = {"model": label, "source": f"{fname} ({how}), re-scored"}
            for plat_name, g in group.groupby("Platform"):
                plat = names.get(plat_name)
                if plat is None:
                    continue
                g = g.sort_values("csv_row")
                pred = g[pred_col].map(lambda v: 1 if v in (1, "1", "GPU", True) else 0).to_numpy()
                row[plat] = platform_metrics(frames[plat], plat, pred, g.csv_row.to_numpy())
            out.append(row)
    return out


# ------------------------------------------------------------------------------------------- as a predictor task

NAME = "devmap"
CONTEXT = ("log1p_transfer_bytes", "log1p_wgsize")  # = context_features; given by the user when recommending


def _device_label(cfg: dict[str, Any]) -> str:
    return f"device={cfg['device']}"


def gain_table(df: pd.DataFrame, platform: str):
    """One platform's rows (`load_platform`) as a gain table for `mirtune fit`: two configurations, the static
    mapping's device first (the default), times = the measured CPU and GPU runtimes, the rows of one kernel
    grouped as one application."""
    from mirtune.tasks.measured import GainTable, TaskSpec

    static = STATIC_DEVICE[platform]
    devices = [static] + [d for d in DEVICES if d != static]
    spec = TaskSpec(name=NAME, sweep="devmap", config_columns=("device",), app_of=lambda row: row["ir_path"],
                    label=_device_label, default_label=f"device={static}")
    times = np.stack([df[f"runtime_{d.lower()}"].to_numpy(dtype=np.float64) for d in devices], axis=1)
    return GainTable(spec=spec, configs=[{"device": d} for d in devices], labels=[f"device={d}" for d in devices],
                     programs=list(df.benchmark.astype(str)), sizes=[str(v) for v in df.get("dataset", df.index)],
                     apps=list(df.ir_path), sources=[Path(p) for p in df.ir_path], times=times,
                     statuses=[["ok"] * 2 for _ in range(len(df))], cv=np.full(times.shape, np.nan),
                     hosts=[{"gpu_model": PLATFORMS[platform]}], context=context_features(df))


class DevmapTask(Task):
    name, kind, platforms = NAME, PUBLISHED_KIND, tuple(PLATFORMS)
    data_folder = "devmap"
    parameter_names, context_names = ("device",), CONTEXT
    launch_options = {"transfer_bytes": "bytes moved to and from the device",
                      "wgsize": "the kernel's work-group size"}
    data_efficiency = True

    def label(self, config):
        return _device_label(config) if config else "default"

    def context_features(self, module, launch=None):
        """The kernel's launch, which the IR does not hold: given by the user (`launch_options`)."""
        launch = launch or {}
        if any(launch.get(k) is None for k in self.launch_options):
            raise UsageError("--task devmap needs the kernel's launch: --transfer-bytes N --wgsize N")
        if any(float(launch[k]) < 0 for k in self.launch_options):
            raise UsageError("--transfer-bytes and --wgsize must be >= 0")
        return launch_features(float(launch["transfer_bytes"]), float(launch["wgsize"]))

    def group_context(self, table):
        return table.context

    def how_to_apply(self, params, is_default, source=None, context=None):
        where = "the GPU" if params["device"] == "GPU" else "the CPU (an OpenCL CPU device)"
        return [f"run the kernel on {where}" + (" (the static mapping)" if is_default else "")]

    def gain_table(self, data, program_dirs=(), platform=None):
        return gain_table(load_platform(Path(data[0]), platform), platform)


TASK = DevmapTask()
