"""`mirtune evaluate MODE`: held-out evaluations, one sub-command per kind, each with its own options.

    mirtune evaluate published TASK       # the paper's tables on the published data (device mapping, coarsening)
        [--data-dir D] [--embedding mirencoder|ir2vec|grewe] [--model-dir M] [--ablation text|graph]
        [--readout mean|meanmax] [--precision fp32|bf16] [--head mlp|gbt|gain|knn] [--pca 0,4,8,16] [--seeds 5]
        [--folds K,K] [--configs N] [--epochs E,E] [--protocol loko|ir2vec] [--json OUT] [--plot OUT.png] [--quick]
    mirtune evaluate measured TASK        # leave-one-application-out on the collected datasets, with baselines
        [--data DIR...] [--programs DIR...] [--embedding mirencoder,ir2vec,none] [--head gain,knn] [--json OUT]
    mirtune evaluate tuning --task TASK   # tuning runs replayed on the collected datasets
        [--budget 20] [--top-k 3] [--seeds 5] [--data DIR...] [--json OUT] [--plot OUT.png]
    mirtune evaluate data-efficiency TASK --label-fractions 0.05,0.1,0.2,0.5,1.0
        [--compare frozen,scratch,finetune,ir2vec] [--repeats 3] [--folds K,K] [--e2e-folds K,K] [--e2e-repeats N]
        [--e2e-epochs 3] [--max-statements 32] [--data DIR | --data-dir D] [--json OUT] [--plot OUT]

The tasks each sub-command takes come from mirtune.tasks.registry (`mirtune evaluate MODE --help` lists them).
The published tables embed every kernel's IR once (cached), choose the head's hyper-parameters by inner
cross-validation on the training folds only (Ray Tune trials on a private local cluster, or $RAY_ADDRESS /
--address), fit the chosen head with every seed on the published outer folds, and print mean +- std over the seeds
next to the paper's and prior work's numbers. Every sub-command writes a PNG chart (--plot; default: beside --json)
and, with --json, the figures and what they were measured with.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from mirtune.errors import UsageError

from mirtune.tasks import registry
from mirtune.tasks.base import MEASURED, PUBLISHED

MODES = ("published", "measured", "tuning", "data-efficiency")  # the sub-commands, in the order --help lists them


def _common(p: argparse.ArgumentParser, plot_default: str) -> None:
    """The options every evaluation takes: outputs, smoke runs and where Ray runs."""
    p.add_argument("--json", default=None, metavar="OUT",
                   help="write the results as JSON (gzipped when OUT ends in .gz)")
    p.add_argument("--plot", default=None, metavar="OUT.png",
                   help=f"where to write the chart (default: beside --json, else {plot_default})")
    p.add_argument("--no-plot", action="store_true", help="write no chart")
    p.add_argument("--quick", action="store_true",
                   help="few candidate configurations, few inner folds and epochs (for tests and smoke runs)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster to join (default: $RAY_ADDRESS, else a private local cluster)")
    p.add_argument("--no-ray", action="store_true", help="run the trials in this process instead of on Ray")


def _gain_heads(p: argparse.ArgumentParser) -> None:
    """--head and --configs of the sub-commands that fit gain heads on measured data."""
    p.add_argument("--head", default=None, metavar="H,H",
                   help="gain heads to choose from: gain, knn, forest (default gain,knn)")
    p.add_argument("--configs", type=int, default=None, metavar="N",
                   help="number of candidate head configurations (default 8; 4 with --quick)")


def _model_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model-dir", default=None, metavar="DIR",
                   help="MIREncoder model directory (default: $MIRTUNE_MODEL, else the shipped model)")


def _collected(p: argparse.ArgumentParser) -> None:
    """--data and --programs: the collector folders of a measured task."""
    p.add_argument("--data", nargs="+", default=None, metavar="DIR",
                   help=registry.listing("collector output folders (default: the datasets the task's shipped "
                                         "predictor was fitted on: {each})", each="{task.name}: datasets/"
                                         "{task.datasets[0]}...", kind=MEASURED))
    p.add_argument("--programs", nargs="*", default=[], metavar="DIR",
                   help="folders holding the measured sources when the recorded paths are gone")


def _precision(p: argparse.ArgumentParser) -> None:
    p.add_argument("--precision", default=None, metavar="P",
                   help="mirencoder only: fp32 (default, or $MIRTUNE_PRECISION) or bf16 (faster statement "
                        "Transformer on CPUs with AMX or AVX512-BF16)")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The sub-commands of `mirtune evaluate`, each with its own options (shared with jobs/evaluate.py)."""
    sub = p.add_subparsers(dest="mode", metavar="MODE", parser_class=type(p))

    q = sub.add_parser("published", help="the paper's tables on the published data (device mapping, thread "
                                         "coarsening)", description=run_published.__doc__.strip().splitlines()[0])
    q.add_argument("task", metavar="TASK", help=registry.listing(kind=PUBLISHED))
    q.add_argument("--data-dir", default=None, metavar="DIR",
                   help="folder holding the published data (default: $MIRTUNE_DATA, ../shared/data)")
    q.add_argument("--embedding", default=None, metavar="NAME",
                   help="mirencoder (default; the frozen pre-trained encoder), ir2vec (peer baseline) or grewe "
                        "(Grewe et al.'s six hand-made static kernel counts, the classic device-mapping baseline)")
    _model_dir(q)
    q.add_argument("--ablation", default=None, metavar="MODALITY",
                   help="text or graph: the single-modality encoder (MIREncoder Tables 6 and 7)")
    _precision(q)
    q.add_argument("--readout", default="mean", metavar="R",
                   help="mirencoder only: mean (default, the paper's) or meanmax (mean ++ element-wise max of the "
                        "statement states and of the node latents)")
    q.add_argument("--seeds", type=int, default=5, metavar="N", help="head seeds 0..N-1 (default 5)")
    q.add_argument("--head", default=None, metavar="KIND",
                   help="mlp (three linear layers, as the paper; default), gbt (gradient-boosted trees), gain (ridge "
                        "regression of every choice's speedup, then the best predicted choice) or knn (nearest "
                        "programs' speedups)")
    q.add_argument("--pca", default=None, metavar="K,K",
                   help="embedding sizes the head search tries: 0 = the whole embedding (default), K = its first K "
                        "principal components (fitted on the training rows; context features kept)")
    q.add_argument("--folds", default=None, metavar="K,K",
                   help="evaluate only these outer folds (device mapping: 0-9) or held-out kernels (coarsening)")
    q.add_argument("--configs", type=int, default=None, metavar="N",
                   help="number of candidate head configurations (default 8; 2 with --quick)")
    q.add_argument("--epochs", default=None, metavar="E,E",
                   help="candidate training epochs of the head search (default device mapping 60,120,240; "
                        "coarsening 100,200,400)")
    q.add_argument("--protocol", default=None, metavar="NAME",
                   help="coarsening only: loko (default; per-GPU leave-one-kernel-out as DeepTune/NCC) or ir2vec "
                        "(IR2Vec's joint model over the 4 GPUs with 68 leave-one-row-out folds, for comparison)")
    _common(q, "evaluate_TASK_EMBEDDING.png")
    q.set_defaults(evaluate=run_published)

    m = sub.add_parser("measured", help="leave-one-application-out on the collected datasets, with baselines",
                       description=run_measured.__doc__.strip().splitlines()[0])
    m.add_argument("task", metavar="TASK", help=registry.listing(kind=MEASURED))
    _collected(m)
    m.add_argument("--embedding", default=None, metavar="NAME,NAME",
                   help=registry.listing("among mirencoder, ir2vec and none (the context features alone) (default: "
                                         "{each})", each="{task.name}: {task.evaluate_embeddings}", kind=MEASURED))
    _model_dir(m)
    _precision(m)
    _gain_heads(m)
    _common(m, "evaluate_TASK.png")
    m.set_defaults(evaluate=run_measured)

    t = sub.add_parser("tuning", help="tuning runs replayed on the collected datasets",
                       description=run_tuning.__doc__.strip().splitlines()[0])
    t.add_argument("--task", required=True, metavar="TASK", help=registry.listing(replays_tuning=True))
    t.add_argument("--budget", type=int, default=None, metavar="N",
                   help="runs per tuning run, the default configuration included (default 20)")
    t.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="the predictor's configurations measured before Optuna takes over (default 3)")
    t.add_argument("--seeds", type=int, default=5, metavar="N", help="seeds of each stochastic strategy (default 5)")
    _collected(t)
    t.add_argument("--embedding", default=None, metavar="NAME", help="mirencoder (default), ir2vec or none")
    _model_dir(t)
    _precision(t)
    _gain_heads(t)
    _common(t, "evaluate_tuning_TASK.png")
    t.set_defaults(evaluate=run_tuning)

    d = sub.add_parser("data-efficiency", help="error against the share of labelled training data",
                       description=run_data_efficiency.__doc__.strip().splitlines()[0])
    d.add_argument("task", metavar="TASK", help=registry.listing(data_efficiency=True))
    d.add_argument("--label-fractions", required=True, metavar="F,F",
                   help="train on these fractions (0 < F <= 1) of each training fold (published data: rows "
                        "stratified by label; measured tasks: whole training applications, at least 2), nested "
                        "and seeded, test on the full protocol's folds, e.g. 0.05,0.1,0.2,0.5,1.0")
    d.add_argument("--compare", default=None, metavar="M,M",
                   help="methods among frozen (head on the frozen pre-trained encoder), scratch (encoder trained "
                        "end to end from random weights), finetune (pre-trained encoder trained end to end), ir2vec "
                        "(head on IR2Vec); default all four")
    d.add_argument("--repeats", type=int, default=None, metavar="N",
                   help="random subsets per (fold, fraction) (default 3)")
    d.add_argument("--folds", default=None, metavar="K,K",
                   help="the outer folds to run (published data: fold numbers; measured tasks: held-out "
                        "applications by name or index)")
    d.add_argument("--e2e-folds", default=None, metavar="K,K",
                   help="the outer folds the end-to-end methods (scratch, finetune) run on (default: those of "
                        "--folds); the factor is computed on these folds")
    d.add_argument("--e2e-repeats", type=int, default=None, metavar="N",
                   help="repeats of the end-to-end methods, the first N of --repeats (default all)")
    d.add_argument("--e2e-epochs", type=int, default=None, metavar="E",
                   help="passes over the labelled subset per end-to-end fit (default 3; at least 20 optimizer steps)")
    d.add_argument("--max-statements", type=int, default=None, metavar="N",
                   help="statements per file in an end-to-end training batch, drawn at random each time (default "
                        "32; prediction reads them all)")
    d.add_argument("--head", default=None, metavar="KIND",
                   help="published data: mlp (default) or gbt; measured tasks: gain (default) or knn")
    d.add_argument("--data-dir", default=None, metavar="DIR",
                   help="published data: the folder holding it (default: $MIRTUNE_DATA, ../shared/data)")
    _collected(d)
    _model_dir(d)
    _common(d, "beside --json (default benchmarks/results/data_efficiency_TASK.json)")
    d.set_defaults(evaluate=run_data_efficiency)


# ------------------------------------------------------------------------------------------------- run

def _parse_folds(task: str, text: str | None) -> list | None:
    if text is None:
        return None
    from mirtune.tasks.devmap import NAME as DEVMAP

    parts = [t.strip() for t in text.split(",") if t.strip()]
    if task == DEVMAP:
        try:
            return [int(t) for t in parts]
        except ValueError:
            raise UsageError(f"--folds for {DEVMAP} takes fold numbers 0-9, got {text!r}") from None
    return parts


# a list of numbers as json.dumps(indent=...) breaks it over lines; a raw newline never occurs inside a JSON string
_SCALAR = r'(?:-?[\d.eE+-]+|"(?:[^"\\\n]|\\.)*"|null|true|false|NaN|-?Infinity)'
_NUMBER_LIST = re.compile(rf"\[\n\s*({_SCALAR}(?:,\n\s*{_SCALAR})*)\n\s*\]")


def result_json(result: dict[str, Any]) -> str:
    """The result as indented JSON with every list of plain values (numbers, strings) on one line (per-row
    predictions and labels would otherwise take one line each)."""
    text = json.dumps(result, indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text) + "\n"


def write_result(out: Path, result: dict[str, Any]) -> None:
    """Write `result` to `out` as `result_json`, gzipped when the name ends in .gz (per-program results of a
    large task are kept in git that way)."""
    from mirtune.paths import write_atomic

    text = result_json(result)
    write_atomic(out, gzip.compress(text.encode(), 9, mtime=0) if out.suffix == ".gz" else text)


def chart_beside(out: Path) -> Path:
    """The chart's default path beside the JSON `out`: x.json or x.json.gz -> x.png."""
    return out.with_name(out.name.removesuffix(".gz")).with_suffix(".png")


def checked_outputs(args: argparse.Namespace, default_json: Path | None,
                    default_plot: Path) -> tuple[Path | None, Path | None]:
    """(--json, --plot) checked before any work (`check_output`: a folder or a path inside a file is one line);
    the chart defaults to the JSON's name with .png, else `default_plot`; None where nothing is written."""
    from mirtune.paths import check_output

    given = args.json or default_json
    out = check_output(given, option="--json") if given else None
    if args.no_plot:
        return out, None
    return out, check_output(args.plot or (chart_beside(out) if out else default_plot), option="--plot")


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
    """`mirtune evaluate measured TASK`: leave-one-application-out on the collected data, with baselines."""
    from mirtune.experiments import measured_eval
    from mirtune.predict import held_out
    from mirtune.predict.select import DEFAULT_GAIN_HEADS, GAIN_HEADS
    from mirtune.progress import note, progress
    from mirtune.tasks.embedders import get_embedder

    from mirtune.predict.predictor import check_embedding

    default = ",".join(registry.get(args.task, kind=MEASURED).evaluate_embeddings)
    names = [n.strip() for n in (args.embedding or default).split(",") if n.strip()]
    heads = [h.strip() for h in (args.head or ",".join(DEFAULT_GAIN_HEADS)).split(",") if h.strip()]
    bad = [h for h in heads if h not in GAIN_HEADS]
    if bad or not heads:
        raise UsageError(f"{args.task} predictors use gain heads: {', '.join(GAIN_HEADS)}; got {args.head!r}")
    if "grewe" in names:
        from mirtune.tasks.devmap import NAME as DEVMAP

        raise UsageError(f"the grewe features are the device-mapping data's per-row counts: {DEVMAP} only")
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
        write_result(out, result)
        print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        measured_eval.plot(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def measured_data(task: str, given: list[str] | None) -> list[str]:
    """The collector folders of a measured task: those given, else the repository's datasets the task names as its
    default (`Task.datasets`: the ones its shipped predictor was fitted on)."""
    from mirtune.paths import REPO_DIR

    if given:
        return given
    data = [str(REPO_DIR / "datasets" / name) for name in registry.get(task).datasets]
    if not data:
        raise UsageError(f"no {task} dataset ships with mirtune; pass --data DIR")
    missing = [d for d in data if not Path(d).is_dir()]
    if missing:
        raise UsageError(f"no {missing[0]} in this repository; pass --data DIR")
    return data


def run_tuning(args: argparse.Namespace) -> int:
    """`mirtune evaluate tuning --task TASK`: tuning runs replayed on the collected data."""
    from mirtune.cluster import ray_session
    from mirtune.experiments import tune_replay
    from mirtune.paths import REPO_DIR
    from mirtune.predict.predictor import check_embedding
    from mirtune.predict.select import DEFAULT_GAIN_HEADS, GAIN_HEADS
    from mirtune.progress import note, progress
    from mirtune.tasks.embedders import get_embedder
    from mirtune.tasks.measured import parquet_files

    tuned = registry.names(replays_tuning=True)
    if args.task not in tuned:
        raise UsageError(f"evaluate tuning needs --task {' or '.join(tuned)}; got {args.task!r}")
    task = args.task
    budget = 20 if args.budget is None else args.budget
    top_k = 3 if args.top_k is None else args.top_k
    tune_replay.check_settings(budget, range(args.seeds), top_k)
    names = [n.strip() for n in (args.embedding or "mirencoder").split(",") if n.strip()]
    heads = [h.strip() for h in (args.head or ",".join(DEFAULT_GAIN_HEADS)).split(",") if h.strip()]
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
    write_result(out, result)
    print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        tune_replay.plot(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def run_data_efficiency(args: argparse.Namespace) -> int:
    """`mirtune evaluate data-efficiency TASK --label-fractions F,F [--compare M,M]`: the data-efficiency study
    (see mirtune.experiments.data_efficiency); writes the JSON as the fits finish, then the table and the chart."""
    import dataclasses

    from mirtune.cluster import ray_session
    from mirtune.experiments import data_efficiency as de
    from mirtune.experiments import data_efficiency_report as de_report
    from mirtune.experiments.data_efficiency_devmap import run_devmap
    from mirtune.experiments.data_efficiency_measured import run_measured
    from mirtune.experiments.finetune import E2EConfig
    from mirtune.paths import REPO_DIR, check_output, data_dir
    from mirtune.predict.heads import GainConfig, HeadConfig
    from mirtune.progress import note

    studied = registry.names(data_efficiency=True)
    if args.task not in studied:
        raise UsageError(f"the data-efficiency study runs on {', '.join(studied)} only (not {args.task!r})")
    measured = registry.get(args.task).kind == MEASURED
    refused = ([("--data-dir", args.data_dir)] if measured else
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

        folds = _parse_folds(args.task, args.folds)
        e2e_folds = int_list("--e2e-folds", args.e2e_folds, 0, "0,1,2")
        for flag, values in (("--folds", folds), ("--e2e-folds", e2e_folds)):
            bad = [f for f in values or [] if not 0 <= f < N_FOLDS]
            if bad:
                raise UsageError(f"{args.task} has folds 0..{N_FOLDS - 1}; no fold {bad[0]} ({flag})")
        data = data_dir(args.data_dir)
        folder = registry.get(args.task).data_folder
        if not (data / folder).is_dir():
            raise UsageError(f"{data} has no {folder}/ folder")
        head = {"head": "gbt"} if args.head == "gbt" else None
    if e2e_folds is not None and folds is not None and not set(e2e_folds) <= set(folds):
        raise UsageError("--e2e-folds must be among --folds")
    out = check_output(args.json or REPO_DIR / "benchmarks" / "results" / f"data_efficiency_{args.task}.json",
                       option="--json")
    plot_path = None if args.no_plot else check_output(args.plot or chart_beside(out), option="--plot")
    command = " ".join([Path(sys.argv[0]).name] + sys.argv[1:])

    latest: dict[str, Any] = {}

    def write(result: dict[str, Any]) -> None:
        result["command"] = command
        result["date"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        write_result(out, result)
        latest.update(result)

    try:
        with ray_session(args.address, enabled=not args.no_ray) as use_ray:
            if measured:
                result = run_measured(args.task, data, fractions, methods, repeats, folds, e2e_folds,
                                      args.e2e_repeats, config, args.model_dir, program_dirs=args.programs,
                                      use_ray=use_ray, note=note, on_update=write, head=head, problem=problem)
            else:
                result = run_devmap(data, fractions, methods, repeats, folds, e2e_folds, args.e2e_repeats, config,
                                    args.model_dir, use_ray=use_ray, note=note, on_update=write, head=head)
    except KeyboardInterrupt:  # Ctrl-C: the table and chart of the fits finished so far
        if not latest:
            raise
        note("interrupted: reporting the fits finished so far")
        result = dict(latest, status=f"interrupted, {latest['status']}")
    write(result)
    print(de_report.table(result))
    print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        de_report.plot(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def run_published(args: argparse.Namespace) -> int:
    """`mirtune evaluate published TASK`: reproduce the MIREncoder device-mapping and thread-coarsening tables with
    frozen embeddings."""
    from mirtune.experiments.published_report import coarsening_table, devmap_table, plot_coarsening, plot_devmap
    from mirtune.paths import data_dir
    from mirtune.progress import note, progress
    from mirtune.tasks import coarsening, devmap
    from mirtune.tasks.embedders import ABLATIONS, EMBEDDERS, get_embedder

    task = registry.get(args.task, kind=PUBLISHED)
    args.embedding = args.embedding or "mirencoder"
    args.head = args.head or "mlp"
    if args.embedding not in EMBEDDERS:
        raise UsageError(f"unknown embedding {args.embedding!r}; choose from {', '.join(EMBEDDERS)}")
    if args.embedding == "none":
        with_context = registry.names(kind=MEASURED, context_names=bool)
        raise UsageError(f"--embedding none (the context features alone) applies to {' and '.join(with_context)}")
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
    if args.protocol is not None and args.task != coarsening.NAME:
        raise UsageError(f"--protocol applies to {coarsening.NAME} only")
    checked_outputs(args, None, Path(f"evaluate_{args.task}.png"))  # before the data and the encoder load
    data = data_dir(args.data_dir)
    if not (data / task.data_folder).is_dir():
        raise UsageError(f"{data} has no {task.data_folder}/ folder")
    if args.task == devmap.NAME and folds is not None:
        bad = [f for f in folds if not 0 <= f < devmap.N_FOLDS]
        if bad:
            raise UsageError(f"{devmap.NAME} has folds 0..{devmap.N_FOLDS - 1}; no fold {bad[0]}")
    if args.task == coarsening.NAME:
        if args.protocol is not None and args.protocol not in coarsening.PROTOCOLS:
            raise UsageError(f"unknown {coarsening.NAME} protocol {args.protocol!r}; choose from "
                             f"{', '.join(coarsening.PROTOCOLS)}")
        unknown = [k for k in folds or [] if k not in coarsening.CoarseningData(data).kernels]
        if unknown:
            raise UsageError(f"unknown {coarsening.NAME} kernel {unknown[0]!r}")
    embedder = get_embedder(args.embedding, ablation=args.ablation, model_dir=args.model_dir,
                            precision=args.precision, readout=args.readout)
    if embedder.row_features is not None and args.task != devmap.NAME:
        raise UsageError(f"the {embedder.name} features are the device-mapping data's per-row counts: {devmap.NAME} "
                         "only")
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
        if args.task == devmap.NAME:
            from mirtune.experiments.published_eval import run_devmap

            result = run_devmap(data, embedder, seeds=seeds, quick=args.quick, folds=folds, use_ray=use_ray,
                                n_configs=args.configs, note=note, progress=progress, epochs=epochs,
                                head=args.head, pca=pca)
            prior = devmap.prior_from_predictions(data)
            table = devmap_table(result, prior)
        else:
            from mirtune.experiments.published_eval import run_coarsening

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
        write_result(out, result)
        print(f"wrote {out}")
    if plot_path is not None:
        plot_path.parent.mkdir(parents=True, exist_ok=True)
        (plot_devmap if args.task == devmap.NAME else plot_coarsening)(result, plot_path)
        print(f"wrote {plot_path}")
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    """Run the evaluation the sub-command names; print the table; write JSON and the chart."""
    if getattr(args, "evaluate", None) is None:
        raise UsageError(f"say what to evaluate: {', '.join(MODES)} (see mirtune evaluate --help)")
    return args.evaluate(args)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `evaluate` and its sub-commands."""
    p = subparsers.add_parser("evaluate", help="held-out evaluations: the paper's tables, the measured tasks, "
                                               "tuning replays, data efficiency",
                              description=__doc__.strip().splitlines()[0])
    add_arguments(p)
    p.set_defaults(func=run_evaluate)
