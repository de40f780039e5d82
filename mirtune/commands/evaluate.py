"""`mirtune evaluate`: reproduce the MIREncoder device-mapping and thread-coarsening tables with frozen embeddings.

    mirtune evaluate devmap|coarsening [--data-dir D] [--embedding mirencoder|ir2vec|grewe] [--model-dir M]
        [--ablation text|graph] [--readout mean|meanmax] [--precision fp32|bf16] [--head mlp|gbt|gain]
        [--pca 0,4,8,16] [--seeds 5]
        [--json OUT.json] [--plot OUT.png] [--quick]
    mirtune evaluate openmp|vectorize|cuda_blocks [--data DIR...] [--embedding mirencoder,ir2vec,none] [--json OUT]
    mirtune evaluate tuning --task openmp|vectorize [--budget 20] [--seeds 5] [--top-k 3] [--json OUT] [--plot OUT.png]
    mirtune evaluate devmap|openmp|vectorize --label-fractions 0.05,0.1,0.2,0.5,1.0
        [--compare frozen,scratch,finetune,ir2vec] [--repeats 3] [--folds K,K] [--e2e-folds K,K] [--e2e-repeats N]
        [--e2e-epochs 3] [--max-statements 32] [--data DIR] [--json OUT] [--plot OUT]

Embeds every kernel's IR once (cached), chooses the head's hyper-parameters by inner cross-validation on the
training folds only (Ray Tune trials on a private local cluster, or $RAY_ADDRESS / --address), fits the chosen
head with every seed on the published outer folds, and prints mean +- std over the seeds next to the paper's and
prior work's numbers. Writes a PNG chart (--plot; default: beside --json, else evaluate_<task>_<embedding>.png)
and, with --json, the figures, their std, the seeds, the chosen configurations and the predictions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from mirtune.errors import UsageError

TASKS = ("devmap", "coarsening", "openmp", "vectorize", "cuda_blocks")
MEASURED_TASKS = ("openmp", "vectorize", "cuda_blocks")  # learnt from this project's own collected datasets
TUNING_TASKS = ("openmp", "vectorize")  # whose tuning runs can be replayed on the collected data


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `mirtune evaluate` (shared with jobs/evaluate.py)."""
    p.add_argument("task", metavar="TASK", help="devmap, coarsening (published data), openmp, vectorize or "
                                                "cuda_blocks (the collected datasets, leave-one-application-out), "
                                                "or tuning (tuning runs replayed on the collected datasets; needs "
                                                "--task)")
    p.add_argument("--task", dest="tuning_task", default=None, metavar="TASK",
                   help="tuning only: openmp or vectorize, the collected task whose tuning runs are replayed")
    p.add_argument("--budget", type=int, default=None, metavar="N",
                   help="tuning only: runs per tuning run, the default configuration included (default 20)")
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="tuning only: the predictor's configurations measured before Optuna takes over (default 3)")
    p.add_argument("--data", nargs="+", default=None, metavar="DIR",
                   help="openmp/vectorize/cuda_blocks: collector output folders (default: the datasets the shipped "
                        "predictor was fitted on: datasets/openmp-epyc + openmp-gen + openmp-apps-epyc + "
                        "openmp-ordinary-epyc; "
                        "datasets/vectorize-epyc; datasets/lscat-h100)")
    p.add_argument("--programs", nargs="*", default=[], metavar="DIR",
                   help="openmp/vectorize/cuda_blocks: folders holding the measured sources when the recorded paths "
                        "are gone")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help="folder holding devmap/ and thread-coarsening/ (default: $MIRTUNE_DATA, ../shared/data)")
    p.add_argument("--embedding", default=None, metavar="NAME",
                   help="mirencoder (default; the frozen pre-trained encoder), ir2vec (peer baseline) or, for "
                        "devmap, grewe (Grewe et al.'s six hand-made static kernel counts, the classic baseline); "
                        "openmp/vectorize take a list and default to mirencoder,ir2vec (openmp: and none, "
                        "the context features alone)")
    p.add_argument("--model-dir", default=None, metavar="DIR",
                   help="MIREncoder model directory (default: $MIRTUNE_MODEL, else the shipped model)")
    p.add_argument("--ablation", default=None, metavar="MODALITY",
                   help="text or graph: the single-modality encoder (MIREncoder Tables 6 and 7)")
    p.add_argument("--precision", default=None, metavar="P",
                   help="mirencoder only: fp32 (default, or $MIRTUNE_PRECISION) or bf16 (faster statement "
                        "Transformer on CPUs with AMX or AVX512-BF16)")
    p.add_argument("--readout", default="mean", metavar="R",
                   help="mirencoder only: mean (default, the paper's) or meanmax (mean ++ element-wise max of the "
                        "statement states and of the node latents)")
    p.add_argument("--seeds", type=int, default=5, metavar="N",
                   help="head seeds 0..N-1 (default 5); tuning: seeds of each stochastic strategy")
    p.add_argument("--head", default=None, metavar="KIND",
                   help="mlp (three linear layers, as the paper; default), gbt (gradient-boosted trees), gain (ridge "
                        "regression of every choice's speedup, then the best predicted choice) or knn (nearest "
                        "programs' speedups); openmp/vectorize take a list of gain heads, default gain,knn")
    p.add_argument("--pca", default=None, metavar="K,K",
                   help="embedding sizes the head search tries: 0 = the whole embedding (default), K = its first K "
                        "principal components (fitted on the training rows; transfer and work-group size kept)")
    p.add_argument("--json", default=None, metavar="OUT", help="write the results as JSON")
    p.add_argument("--plot", default=None, metavar="OUT.png", help="where to write the chart")
    p.add_argument("--no-plot", action="store_true", help="write no chart")
    p.add_argument("--quick", action="store_true",
                   help="2 candidate configurations, inner 2-fold CV, few epochs (for tests and smoke runs)")
    p.add_argument("--folds", default=None, metavar="K,K",
                   help="devmap: evaluate only these outer folds (0-9); coarsening: only these held-out kernels")
    p.add_argument("--configs", type=int, default=None, metavar="N",
                   help="number of candidate head configurations (default 8; 2 with --quick)")
    p.add_argument("--epochs", default=None, metavar="E,E",
                   help="candidate training epochs of the head search (default devmap 60,120,240; coarsening "
                        "100,200,400)")
    p.add_argument("--protocol", default=None, metavar="NAME",
                   help="coarsening only: loko (default; per-GPU leave-one-kernel-out as DeepTune/NCC) or ir2vec "
                        "(IR2Vec's joint model over the 4 GPUs with 68 leave-one-row-out folds, for comparison)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster to join (default: $RAY_ADDRESS, else a private local cluster)")
    p.add_argument("--no-ray", action="store_true", help="run the trials in this process instead of on Ray")
    p.add_argument("--label-fractions", default=None, metavar="F,F",
                   help="devmap, openmp, vectorize: the data-efficiency study: train on these fractions "
                        "(0 < F <= 1) of each training fold (devmap: rows stratified by label; openmp/vectorize: "
                        "whole training applications, at least 2), nested and seeded, test on the full protocol's "
                        "folds, e.g. 0.05,0.1,0.2,0.5,1.0 (openmp/vectorize: --folds and --e2e-folds name "
                        "held-out applications)")
    p.add_argument("--compare", default=None, metavar="M,M",
                   help="data efficiency: methods among frozen (head on the frozen pre-trained encoder), scratch "
                        "(encoder trained end to end from random weights), finetune (pre-trained encoder trained "
                        "end to end), ir2vec (head on IR2Vec); default all four")
    p.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="data efficiency: random subsets per (fold, fraction) (default 3)")
    p.add_argument("--e2e-folds", default=None, metavar="K,K",
                   help="data efficiency: the outer folds the end-to-end methods (scratch, finetune) run on "
                        "(default: those of --folds); the factor is computed on these folds. openmp/vectorize: "
                        "held-out applications by name (or index), as for --folds")
    p.add_argument("--e2e-repeats", type=int, default=None, metavar="N",
                   help="data efficiency: repeats of the end-to-end methods, the first N of --repeats (default all)")
    p.add_argument("--e2e-epochs", type=int, default=None, metavar="E",
                   help="data efficiency: passes over the labelled subset per end-to-end fit (default 3; at least "
                        "20 optimizer steps)")
    p.add_argument("--max-statements", type=int, default=None, metavar="N",
                   help="data efficiency: statements per file in an end-to-end training batch, drawn at random "
                        "each time (default 32; prediction reads them all)")


# ------------------------------------------------------------------------------------------ formatting

def _pm(mean: float, std: float | None, fmt: str, scale: float = 1.0) -> str:
    if mean is None:
        return "-"
    if std is None:
        return format(mean * scale, fmt)
    return f"{format(mean * scale, fmt)}±{format(std * scale, fmt)}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    from mirtune.tables import format_table

    return format_table(header, rows)


def run_label(result: dict[str, Any]) -> str:
    """This run's name in tables and charts: the embedding and the head it was measured with."""
    return f"mirtune + {result['embedding']}, {result.get('head', 'mlp')} head"


def devmap_table(result: dict[str, Any], prior: list[dict[str, Any]]) -> str:
    from mirtune.tasks.devmap import PLATFORMS, PUBLISHED

    header = ["model", "AMD acc%", "AMD F1", "AMD speedup", "NV acc%", "NV F1", "NV speedup", "source"]
    rows = []
    for r in PUBLISHED:
        cells = [r["model"]]
        for p in PLATFORMS:
            acc, sp = r[p]
            cells += [_pm(acc, None, ".2f"), "-", _pm(sp, None, ".2f") if sp is not None else "-"]
        rows.append(cells + [r["source"]])
    for r in prior:
        cells = [r["model"]]
        for p in PLATFORMS:
            m = r.get(p)
            cells += ([_pm(m["accuracy"], None, ".2f", 100), _pm(m["f1"], None, ".3f"), _pm(m["speedup"], None, ".2f")]
                      if m else ["-"] * 3)
        rows.append(cells + [r["source"]])
    n = len(result["seeds"])
    cells = [run_label(result) + " (this run)"]
    for p in PLATFORMS:
        m = result[p]
        cells += [_pm(m["accuracy"], m["accuracy_std"], ".2f", 100), _pm(m["f1"], m["f1_std"], ".3f"),
                  _pm(m["speedup"], m["speedup_std"], ".2f")]
    rows.append(cells + [f"mean±std over {n} head seeds, folds {result['fold_column']}"
                         + (f" {result['folds']}" if len(result["folds"]) < 10 else "")])
    cells = ["Oracle"]
    for p in PLATFORMS:
        cells += ["100.00", "1.000", _pm(result[p]["oracle_speedup"], None, ".2f")]
    rows.append(cells + ["the oracle device of every row"])
    title = ("Heterogeneous device mapping: accuracy, F1 of the GPU class, mean speedup over the static mapping "
             "(CPU on AMD, GPU on NVIDIA)")
    return title + "\n" + _table(header, rows)


def coarsening_table(result: dict[str, Any], prior: list[dict[str, Any]]) -> str:
    from mirtune.tasks.coarsening import PLATFORMS, PUBLISHED

    header = ["model"] + list(PLATFORMS) + ["average", "source"]
    rows = []
    for r in PUBLISHED:
        rows.append([r["model"]] + [f"{v:.3f}" for v in r["values"]] + [r["source"]])
    for r in prior:
        rows.append([r["model"]] + [f"{r[p]:.3f}" if p in r else "-" for p in PLATFORMS]
                    + [f"{r['average']:.3f}" if "average" in r else "-", r["source"]])
    n = len(result["seeds"])
    rows.append([run_label(result) + " (this run)"]
                + [_pm(result["per_gpu"][p], result["per_gpu_std"][p], ".3f") for p in PLATFORMS]
                + [_pm(result["average"], result["average_std"], ".3f"),
                   f"mean±std over {n} head seeds, "
                   + ("leave-one-kernel-out" if result.get("protocol", "loko") == "loko"
                      else "IR2Vec protocol: joint model, 68 leave-one-row-out folds")
                   + (f" ({len(result['kernels'])} kernels)" if len(result["kernels"]) < 17 else "")])
    if result.get("fixed_factor_baseline"):
        b = result["fixed_factor_baseline"]
        rows.append(["Best fixed factor (no code)"] + [f"{b[p]:.3f}" for p in PLATFORMS]
                    + [f"{b['average']:.3f}", "the factor best on the other kernels, same leave-one-kernel-out"])
    rows.append(["Oracle"] + [f"{result['oracle'][p]:.3f}" for p in PLATFORMS]
                + [f"{result['oracle']['average']:.3f}", "best measured factor per kernel"])
    if result.get("code_only_ceiling"):
        c = result["code_only_ceiling"]
        rows.append(["Code-only ceiling"] + [f"{c[p]:.3f}" for p in PLATFORMS]
                    + [f"{c['average']:.3f}", "oracle with one shared factor for identical IR (mt = mtLocal)"])
    title = "Thread coarsening: mean speedup over factor 1 (arithmetic mean over kernels per GPU)"
    return title + "\n" + _table(header, rows)


# ---------------------------------------------------------------------------------------------- plots

def _colour(label: str):
    """One colour per model name, the same in every panel; this run in black, the oracle in grey."""
    import matplotlib

    if label.startswith("mirtune"):
        return "black"
    if label == "Oracle":
        return "0.65"
    if label.startswith("Best fixed factor"):
        return "0.85"
    names = [r["model"] for r in _published_models()]
    palette = [c for i, c in enumerate(matplotlib.colormaps["tab10"].colors) if i != 7]  # no grey
    palette += list(matplotlib.colormaps["Dark2"].colors)
    return palette[names.index(label) % len(palette)] if label in names else None


def _published_models() -> list[dict[str, Any]]:
    from mirtune.tasks import coarsening, devmap

    return devmap.PUBLISHED + [r for r in coarsening.PUBLISHED
                               if r["model"] not in {m["model"] for m in devmap.PUBLISHED}]


def _bars(ax, groups: list[str], series: list[tuple[str, list, list | None]], ylabel: str) -> None:
    import numpy as np

    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (label, values, errs) in enumerate(series):
        vals = [np.nan if v is None else v for v in values]
        ax.bar(x + (i - (len(series) - 1) / 2) * width, vals, width, label=label, color=_colour(label),
               yerr=errs, capsize=2 if errs else 0, ecolor="red")
    ax.set_xticks(x, groups)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def plot_devmap(result: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mirtune.tasks.devmap import PLATFORMS, PUBLISHED

    groups = [PLATFORMS[p] for p in PLATFORMS]
    acc_series, sp_series = [], []
    for r in PUBLISHED:
        if r["model"] == "Static mapping":
            continue
        acc_series.append((r["model"], [r[p][0] for p in PLATFORMS], None))
        if r["amd"][1] is not None:
            sp_series.append((r["model"], [r[p][1] for p in PLATFORMS], None))
    ours = run_label(result)
    acc_series.append((ours, [100 * result[p]["accuracy"] for p in PLATFORMS],
                       [100 * result[p]["accuracy_std"] for p in PLATFORMS]))
    sp_series.append((ours, [result[p]["speedup"] for p in PLATFORMS], [result[p]["speedup_std"] for p in PLATFORMS]))
    sp_series.append(("Oracle", [result[p]["oracle_speedup"] for p in PLATFORMS], None))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    _bars(axes[0], groups, acc_series, "accuracy (%)")
    axes[0].set_ylim(50, 100)
    axes[0].set_title("Device mapping accuracy")
    _bars(axes[1], groups, sp_series, "mean speedup over static mapping")
    axes[1].set_title("Speedup over static mapping")
    axes[0].legend(fontsize=7, loc="lower right")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"devmap, {len(result['seeds'])} head seeds (error bars: std)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_coarsening(result: dict[str, Any], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mirtune.tasks.coarsening import PLATFORMS, PUBLISHED

    groups = list(PLATFORMS) + ["average"]
    series = [(r["model"], list(r["values"]), None) for r in PUBLISHED]
    series.append((run_label(result),
                   [result["per_gpu"][p] for p in PLATFORMS] + [result["average"]],
                   [result["per_gpu_std"][p] for p in PLATFORMS] + [result["average_std"]]))
    if result.get("fixed_factor_baseline"):
        b = result["fixed_factor_baseline"]
        series.append(("Best fixed factor (no code)", [b[p] for p in PLATFORMS] + [b["average"]], None))
    series.append(("Oracle", [result["oracle"][p] for p in PLATFORMS] + [result["oracle"]["average"]], None))
    fig, ax = plt.subplots(figsize=(12, 4.8))
    _bars(ax, groups, series, "mean speedup over factor 1")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_ylim(0.7, None)
    protocol = ("leave-one-kernel-out" if result.get("protocol", "loko") == "loko"
                else "IR2Vec's joint protocol (68 leave-one-row-out folds)")
    ax.set_title(f"Thread coarsening, {protocol}, {len(result['seeds'])} head seeds (error bars: std)")
    ax.legend(fontsize=7, ncol=3, loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


# ------------------------------------------------------------------------------------------------- run

def _parse_folds(task: str, text: str | None) -> list | None:
    if text is None:
        return None
    parts = [t.strip() for t in text.split(",") if t.strip()]
    if task == "devmap":
        try:
            return [int(t) for t in parts]
        except ValueError:
            raise UsageError(f"--folds for devmap takes fold numbers 0-9, got {text!r}") from None
    return parts


# a list of numbers as json.dumps(indent=...) breaks it over lines; a raw newline never occurs inside a JSON string
_SCALAR = r'(?:-?[\d.eE+-]+|"(?:[^"\\\n]|\\.)*"|null|true|false|NaN|-?Infinity)'
_NUMBER_LIST = re.compile(rf"\[\n\s*({_SCALAR}(?:,\n\s*{_SCALAR})*)\n\s*\]")


def result_json(result: dict[str, Any]) -> str:
    """The result as indented JSON with every list of plain values (numbers, strings) on one line (per-row
    predictions and labels would otherwise take one line each)."""
    text = json.dumps(result, indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text) + "\n"


def checked_outputs(args: argparse.Namespace, default_json: Path | None,
                    default_plot: Path) -> tuple[Path | None, Path | None]:
    """(--json, --plot) checked before any work (`check_output`: a folder or a path inside a file is one line);
    the chart defaults to the JSON's name with .png, else `default_plot`; None where nothing is written."""
    from mirtune.paths import check_output

    given = args.json or default_json
    out = check_output(given, option="--json") if given else None
    if args.no_plot:
        return out, None
    return out, check_output(args.plot or (out.with_suffix(".png") if out else default_plot), option="--plot")


def int_list(flag: str, text: str | None, minimum: int, example: str) -> list[int] | None:
    """A comma-separated list of whole numbers >= `minimum`, or None when the option is absent."""
    if text is None:
        return None
    try:
        values = [int(t) for t in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag} takes whole numbers like {example}, got {text!r}") from None
    if min(values) < minimum:
        raise UsageError(f"{flag} values must be >= {minimum}")
    return values


def run_measured(args: argparse.Namespace) -> int:
    """`mirtune evaluate openmp|vectorize|cuda_blocks`: leave-one-application-out on the collected data, with
    baselines."""
    from mirtune.experiments import measured_eval
    from mirtune.paths import write_atomic
    from mirtune.predict import held_out
    from mirtune.predict.select import GAIN_HEADS
    from mirtune.progress import note, progress
    from mirtune.tasks.embedders import get_embedder

    for flag, value in (("--ablation", args.ablation), ("--pca", args.pca), ("--folds", args.folds),
                        ("--epochs", args.epochs), ("--protocol", args.protocol), ("--data-dir", args.data_dir)):
        if value is not None:
            raise UsageError(f"{flag} does not apply to {args.task}")
    from mirtune.predict.predictor import check_embedding

    default = "mirencoder,ir2vec,none" if args.task == "openmp" else "mirencoder,ir2vec"
    names = [n.strip() for n in (args.embedding or default).split(",") if n.strip()]
    heads = [h.strip() for h in (args.head or ",".join(GAIN_HEADS)).split(",") if h.strip()]
    bad = [h for h in heads if h not in GAIN_HEADS]
    if bad or not heads:
        raise UsageError(f"{args.task} predictors use gain heads: {', '.join(GAIN_HEADS)}; got {args.head!r}")
    if "grewe" in names:
        raise UsageError("the grewe features are the device-mapping data's per-row counts: devmap only")
    for name in names:
        check_embedding(args.task, name)
    if args.configs is not None and args.configs < 1:
        raise UsageError("--configs must be >= 1")
    data = measured_data(args.task, args.data)
    out, plot_path = checked_outputs(args, None, Path(f"evaluate_{args.task}.png"))
    embedders = [get_embedder(n, model_dir=args.model_dir if n == "mirencoder" else None,
                              precision=args.precision if n == "mirencoder" else None) for n in names]
    from mirtune.cluster import ray_session

    with ray_session(args.address, enabled=not args.no_ray) as use_ray:
        result = held_out.run(args.task, data, embedders, heads=heads, program_dirs=args.programs,
                              use_ray=use_ray, n_configs=args.configs or (4 if args.quick else None),
                              n_inner=3 if args.quick else 5, note=note, progress=progress)
    result["command"] = " ".join([Path(sys.argv[0]).name] + sys.argv[1:])
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    print(measured_eval.table(result))
    if out is not None:
        write_atomic(out, result_json(result))
        print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        measured_eval.plot(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def measured_data(task: str, given: list[str] | None) -> list[str]:
    """The collector folders of a measured task: those given, else the repository's datasets the task names as its
    default (`DATASETS` of mirtune.tasks.TASK: the ones its shipped predictor was fitted on)."""
    from mirtune.paths import REPO_DIR
    from mirtune.predict.predictor import task_module

    if given:
        return given
    data = [str(REPO_DIR / "datasets" / name) for name in getattr(task_module(task), "DATASETS", ())]
    if not data:
        raise UsageError(f"no {task} dataset ships with mirtune; pass --data DIR")
    missing = [d for d in data if not Path(d).is_dir()]
    if missing:
        raise UsageError(f"no {missing[0]} in this repository; pass --data DIR")
    return data


def run_tuning(args: argparse.Namespace) -> int:
    """`mirtune evaluate tuning --task openmp|vectorize`: tuning runs replayed on the collected data."""
    from mirtune.cluster import ray_session
    from mirtune.experiments import tune_replay
    from mirtune.paths import REPO_DIR, write_atomic
    from mirtune.predict.predictor import check_embedding
    from mirtune.predict.select import GAIN_HEADS
    from mirtune.progress import note, progress
    from mirtune.tasks.embedders import get_embedder
    from mirtune.tasks.measured import parquet_files

    for flag, value in (("--ablation", args.ablation), ("--pca", args.pca), ("--folds", args.folds),
                        ("--epochs", args.epochs), ("--protocol", args.protocol), ("--data-dir", args.data_dir)):
        if value is not None:
            raise UsageError(f"{flag} does not apply to evaluate tuning")
    if args.tuning_task not in TUNING_TASKS:
        raise UsageError(f"evaluate tuning needs --task {' or '.join(TUNING_TASKS)}; got {args.tuning_task!r}")
    task = args.tuning_task
    budget = 20 if args.budget is None else args.budget
    top_k = 3 if args.top_k is None else args.top_k
    tune_replay.check_settings(budget, range(args.seeds), top_k)
    names = [n.strip() for n in (args.embedding or "mirencoder").split(",") if n.strip()]
    heads = [h.strip() for h in (args.head or ",".join(GAIN_HEADS)).split(",") if h.strip()]
    if len(names) != 1 or names[0] == "grewe":
        raise UsageError(f"evaluate tuning takes one embedding, mirencoder, ir2vec or none; got {args.embedding!r}")
    check_embedding(task, names[0])
    if not heads or any(h not in GAIN_HEADS for h in heads):
        raise UsageError(f"{task} predictors use gain heads: {', '.join(GAIN_HEADS)}; got {args.head!r}")
    data = measured_data(task, args.data)
    parquet_files(data)  # a missing folder is refused before the encoder loads
    out, plot_path = checked_outputs(args, REPO_DIR / "benchmarks" / "results" / f"evaluate_tuning_{task}.json",
                                     Path(f"evaluate_tuning_{task}.png"))
    embedder = get_embedder(names[0], model_dir=args.model_dir if names[0] == "mirencoder" else None,
                            precision=args.precision if names[0] == "mirencoder" else None)
    with ray_session(args.address, enabled=not args.no_ray) as use_ray:
        result = tune_replay.run(task, data, embedder, heads=heads, budget=budget, seeds=range(args.seeds),
                                 top_k=top_k, program_dirs=args.programs, use_ray=use_ray,
                                 n_configs=args.configs or (4 if args.quick else None),
                                 n_inner=3 if args.quick else 5, note=note, progress=progress)
    result["command"] = " ".join([Path(sys.argv[0]).name] + sys.argv[1:])
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    print(tune_replay.table(result))
    write_atomic(out, result_json(result))
    print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        tune_replay.plot(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


DATA_EFFICIENCY_OPTIONS = ("label_fractions", "compare", "repeats", "e2e_folds", "e2e_repeats", "e2e_epochs",
                           "max_statements")


def run_data_efficiency(args: argparse.Namespace) -> int:
    """`mirtune evaluate devmap|openmp|vectorize --label-fractions F,F [--compare M,M]`: the data-efficiency study
    (see mirtune.experiments.data_efficiency); writes the JSON as the fits finish, then the table and the chart."""
    import dataclasses

    from mirtune.cluster import ray_session
    from mirtune.experiments import data_efficiency as de
    from mirtune.experiments.finetune import E2EConfig
    from mirtune.paths import REPO_DIR, check_output, data_dir, write_atomic
    from mirtune.predict.heads import GainConfig, HeadConfig
    from mirtune.progress import note

    if args.label_fractions is None:
        raise UsageError("--compare, --repeats, --e2e-folds, --e2e-repeats, --e2e-epochs and --max-statements belong "
                         "to the data-efficiency study: add --label-fractions F,F")
    if args.task not in de.TASKS:
        raise UsageError(f"--label-fractions: the data-efficiency study runs on {', '.join(de.TASKS)} only "
                         f"(not {args.task!r})")
    measured = args.task in de.MEASURED_TASKS
    refused = [("--ablation", args.ablation), ("--pca", args.pca), ("--epochs", args.epochs),
               ("--protocol", args.protocol), ("--task", args.tuning_task), ("--budget", args.budget),
               ("--top-k", args.top_k), ("--configs", args.configs), ("--precision", args.precision),
               ("--embedding", args.embedding), ("--readout", None if args.readout == "mean" else args.readout)]
    refused += ([("--data-dir", args.data_dir)] if measured else
                [("--data", args.data), ("--programs", args.programs or None)])
    for flag, value in refused:
        if value is not None:
            raise UsageError(f"{flag} does not apply to the data-efficiency study"
                             + (f" on {args.task}" if flag in ("--data", "--programs", "--data-dir") else ""))
    fractions = de.parse_fractions(args.label_fractions)
    methods = de.parse_methods(args.compare)
    repeats = 3 if args.repeats is None else args.repeats
    if repeats < 1 or (args.e2e_repeats is not None and args.e2e_repeats < 1):
        raise UsageError("--repeats and --e2e-repeats must be >= 1")
    e2e_methods = any(m in de.END_TO_END for m in methods)
    heads = ("gain", "knn") if measured else ("mlp", "gbt")
    if args.head not in (None, *heads):
        raise UsageError(f"--head for the data-efficiency study on {args.task}: {heads[0]} (default) or {heads[1]}, "
                         f"not {args.head!r}")
    if args.head == heads[1] and e2e_methods:
        raise UsageError(f"the end-to-end methods end in the {'ridge gain' if measured else 'MLP'} head, so --head "
                         f"{heads[1]} compares the heads alone: --compare frozen,ir2vec")
    if args.e2e_folds is not None and not e2e_methods:
        raise UsageError("--e2e-folds applies to the end-to-end methods (scratch, finetune)")
    config = E2EConfig()
    if args.quick:  # a smoke run: a few steps on short statement samples
        config = dataclasses.replace(config, epochs=1, min_steps=2, batch_size=8, max_statements=16,
                                     head=HeadConfig(epochs=20))
    for flag, value, name in (("--e2e-epochs", args.e2e_epochs, "epochs"),
                              ("--max-statements", args.max_statements, "max_statements")):
        if value is not None:
            if value < 1:
                raise UsageError(f"{flag} must be >= 1")
            config = dataclasses.replace(config, **{name: value})
    if measured:
        from mirtune.predict.held_out import held_out_problem
        from mirtune.tasks.measured import parquet_files

        data = measured_data(args.task, args.data)
        parquet_files(data)  # a missing folder is refused before anything loads
        problem = held_out_problem(args.task, data, args.programs)
        apps = [a for _, _, a in problem[2]]
        folds = de.resolve_folds(apps, args.folds, "--folds")
        e2e_folds = de.resolve_folds(apps, args.e2e_folds, "--e2e-folds")
        head = {"head": "knn"} if args.head == "knn" else GainConfig().to_dict()
    else:
        from mirtune.tasks.devmap import N_FOLDS

        folds = _parse_folds("devmap", args.folds)
        e2e_folds = int_list("--e2e-folds", args.e2e_folds, 0, "0,1,2")
        for flag, values in (("--folds", folds), ("--e2e-folds", e2e_folds)):
            bad = [f for f in values or [] if not 0 <= f < N_FOLDS]
            if bad:
                raise UsageError(f"devmap has folds 0..{N_FOLDS - 1}; no fold {bad[0]} ({flag})")
        data = data_dir(args.data_dir)
        if not (data / "devmap").is_dir():
            raise UsageError(f"{data} has no devmap/ folder")
        head = {"head": "gbt"} if args.head == "gbt" else None
    if e2e_folds is not None and folds is not None and not set(e2e_folds) <= set(folds):
        raise UsageError("--e2e-folds must be among --folds")
    out = check_output(args.json or REPO_DIR / "benchmarks" / "results" / f"data_efficiency_{args.task}.json",
                       option="--json")
    plot_path = None if args.no_plot else check_output(args.plot or out.with_suffix(".png"), option="--plot")
    command = " ".join([Path(sys.argv[0]).name] + sys.argv[1:])

    latest: dict[str, Any] = {}

    def write(result: dict[str, Any]) -> None:
        result["command"] = command
        result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        write_atomic(out, result_json(result))
        latest.update(result)

    try:
        with ray_session(args.address, enabled=not args.no_ray) as use_ray:
            if measured:
                result = de.run_measured(args.task, data, fractions, methods, repeats, folds, e2e_folds,
                                         args.e2e_repeats, config, args.model_dir, program_dirs=args.programs,
                                         use_ray=use_ray, note=note, on_update=write, head=head, problem=problem)
            else:
                result = de.run_devmap(data, fractions, methods, repeats, folds, e2e_folds, args.e2e_repeats, config,
                                       args.model_dir, use_ray=use_ray, note=note, on_update=write, head=head)
    except KeyboardInterrupt:  # Ctrl-C: the table and chart of the fits finished so far
        if not latest:
            raise
        note("interrupted: reporting the fits finished so far")
        result = dict(latest, status=f"interrupted, {latest['status']}")
    write(result)
    print(de.table(result))
    print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        de.plot(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    """Run one evaluation from parsed arguments; print the table; write JSON and the chart."""
    from mirtune.paths import data_dir, write_atomic
    from mirtune.progress import note, progress
    from mirtune.tasks.embedders import ABLATIONS, EMBEDDERS, get_embedder

    if any(getattr(args, name) is not None for name in DATA_EFFICIENCY_OPTIONS):
        return run_data_efficiency(args)
    if args.task == "tuning":
        return run_tuning(args)
    if args.tuning_task is not None or args.budget is not None or args.top_k is not None:
        raise UsageError("--task, --budget and --top-k apply to evaluate tuning only")
    if args.task not in TASKS:
        raise UsageError(f"unknown task {args.task!r}; choose from {', '.join(TASKS)} or tuning")
    if args.task in MEASURED_TASKS:
        return run_measured(args)
    if args.data is not None or args.programs:
        raise UsageError("--data and --programs apply to openmp, vectorize and cuda_blocks only")
    args.embedding = args.embedding or "mirencoder"
    args.head = args.head or "mlp"
    if args.embedding not in EMBEDDERS:
        raise UsageError(f"unknown embedding {args.embedding!r}; choose from {', '.join(EMBEDDERS)}")
    if args.embedding == "none":
        raise UsageError("--embedding none (the context features alone) applies to openmp and cuda_blocks")
    if args.ablation is not None and args.ablation not in ABLATIONS:
        raise UsageError(f"unknown ablation {args.ablation!r}; choose from {', '.join(ABLATIONS)}")
    if args.seeds < 1:
        raise UsageError("--seeds must be >= 1")
    if args.precision is not None and args.embedding != "mirencoder":
        raise UsageError("--precision applies to the mirencoder embedding only")
    if args.readout != "mean" and args.embedding != "mirencoder":
        raise UsageError("--readout applies to the mirencoder embedding only")
    from mirtune.predict.heads import HEADS

    if args.head not in HEADS:
        raise UsageError(f"unknown head {args.head!r}; choose from {', '.join(HEADS)}")
    if args.head != "mlp" and args.epochs:
        raise UsageError("--epochs applies to the mlp head only")
    if args.configs is not None and args.configs < 1:
        raise UsageError("--configs must be >= 1")
    folds = _parse_folds(args.task, args.folds)
    epochs = int_list("--epochs", args.epochs, 1, "30,60,120")
    pca = tuple(int_list("--pca", args.pca, 0, "0,4,8,16") or (0,))
    if args.protocol is not None and args.task != "coarsening":
        raise UsageError("--protocol applies to coarsening only")
    checked_outputs(args, None, Path(f"evaluate_{args.task}.png"))  # before the data and the encoder load
    data = data_dir(args.data_dir)
    if not (data / ("devmap" if args.task == "devmap" else "thread-coarsening")).is_dir():
        raise UsageError(f"{data} has no {'devmap' if args.task == 'devmap' else 'thread-coarsening'}/ folder")
    if args.task == "devmap" and folds is not None:
        from mirtune.tasks.devmap import N_FOLDS

        bad = [f for f in folds if not 0 <= f < N_FOLDS]
        if bad:
            raise UsageError(f"devmap has folds 0..{N_FOLDS - 1}; no fold {bad[0]}")
    if args.task == "coarsening":
        from mirtune.tasks.coarsening import PROTOCOLS, CoarseningData

        if args.protocol is not None and args.protocol not in PROTOCOLS:
            raise UsageError(f"unknown coarsening protocol {args.protocol!r}; choose from {', '.join(PROTOCOLS)}")
        unknown = [k for k in folds or [] if k not in CoarseningData(data).kernels]
        if unknown:
            raise UsageError(f"unknown coarsening kernel {unknown[0]!r}")
    embedder = get_embedder(args.embedding, ablation=args.ablation, model_dir=args.model_dir,
                            precision=args.precision, readout=args.readout)
    if embedder.row_features is not None and args.task != "devmap":
        raise UsageError(f"the {embedder.name} features are the device-mapping data's per-row counts: devmap only")
    tag = embedder.name
    out, plot_path = checked_outputs(args, None, Path(f"evaluate_{args.task}_{tag}.png"))
    use_ray = not args.no_ray
    started_ray = False
    if use_ray:
        import ray

        from mirtune.cluster import init_ray

        started_ray = not ray.is_initialized()
        if started_ray:
            note("starting a private Ray cluster" if not (args.address or os.environ.get("RAY_ADDRESS"))
                 else f"joining Ray at {args.address or os.environ['RAY_ADDRESS']}")
        init_ray(args.address)
    t0 = time.monotonic()
    try:
        seeds = list(range(args.seeds))
        if args.task == "devmap":
            from mirtune.experiments.published_eval import run_devmap
            from mirtune.tasks import devmap

            result = run_devmap(data, embedder, seeds=seeds, quick=args.quick, folds=folds, use_ray=use_ray,
                                n_configs=args.configs, note=note, progress=progress, epochs=epochs,
                                head=args.head, pca=pca)
            prior = devmap.prior_from_predictions(data)
            table = devmap_table(result, prior)
        else:
            from mirtune.experiments.published_eval import run_coarsening
            from mirtune.tasks import coarsening

            result = run_coarsening(data, embedder, seeds=seeds, quick=args.quick, kernels=folds, use_ray=use_ray,
                                    n_configs=args.configs, note=note, progress=progress,
                                    protocol=args.protocol or "loko", epochs=epochs, head=args.head, pca=pca)
            prior = coarsening.prior_from_predictions(data)
            table = coarsening_table(result, prior)
    finally:
        if started_ray:
            from mirtune.cluster import shutdown_ray

            shutdown_ray()
    result["ablation"] = args.ablation
    result["pca"] = list(pca)
    result["embedding_meta"] = {k: v for k, v in embedder.meta.items() if k in ("readout", "precision", "version")}
    result["embedding_description"] = embedder.description
    result["command"] = " ".join([Path(sys.argv[0]).name] + sys.argv[1:])
    result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    print(table)
    print(f"\n{args.task} with {tag}: {time.monotonic() - t0:.0f} s "
          f"(embed {result['timing_s']['embed']} s, selection {result['timing_s']['select']} s, "
          f"fits {result['timing_s']['fit']} s)")
    if out is not None:
        write_atomic(out, result_json(result))
        print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        (plot_devmap if args.task == "devmap" else plot_coarsening)(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `evaluate`."""
    p = subparsers.add_parser("evaluate", help="reproduce the device-mapping / thread-coarsening tables",
                              description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run_evaluate)
