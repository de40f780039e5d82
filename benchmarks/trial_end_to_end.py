"""End-to-end models in the encoder trial's folds: an encoder's architecture trained end to end on a gain task's
objective, from random weights (`--init scratch`: the issue's from-scratch reference for a frozen encoder's label
curve, `encoder_trial.py --label-fractions`) or from the encoder's pre-trained weights (`--init finetune`: does
training the encoder itself on the task add what its frozen embedding lacks?).

    .venv/bin/python benchmarks/trial_end_to_end.py --encoder build/real-medium-long-step5600 --task vectorize \
        --init scratch --epochs 3,6 [--seed 0] [--json benchmarks/results/trial_scratch_vectorize.json [--resume]] \
        [--encoder-lr 5e-4] [--fraction 0.1]

Folds: `encoder_trial`'s (10, grouped by program, drawn with `--seed`); every training row, or with `--fraction F`
the rows of that share of each fold's training programs (`encoder_trial.fewer_labels`, as the frozen heads' label
curves cut them; test programs unchanged) for the end-to-end models and the frozen heads alike. The model:
`data_efficiency.end_to_end_job(init, ...)` with `finetune.E2EConfig` but for the epochs (each of `--epochs`),
one CPU per fit on a local Ray cluster. Prints and saves the share of the oracle over every group for each number
of epochs, beside the default and best fixed configurations of the same folds and the trial's heads on the frozen
encoder, IR2Vec and the random control in those folds, with each end-to-end model's paired difference from each
(95% interval from resampling whole programs, `encoder_trial.paired_interval`). Each finished fit, with its test
predictions, is kept in `--json` as it ends; `--resume` takes the fits a stopped run kept there (same task, encoder,
init, draw and folds) and trains only the others, so a run longer than a sitting finishes over several.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_trial import (ANCHORS, GAIN_TASKS, draw_shares, fewer_labels, paired_interval,  # noqa: E402
                           representations, trial_table)

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.experiments.data_efficiency import end_to_end_job, run_jobs  # noqa: E402
from mirtune.experiments.finetune import E2EConfig, load_samples  # noqa: E402
from mirtune.paths import write_result  # noqa: E402
from mirtune.predict.predictor import program_ir, table_context, table_matrix  # noqa: E402
from mirtune.tasks.measured import geomean, group_kfold, share_of_oracle  # noqa: E402

INITS = ("scratch", "finetune")
FROZEN = "frozen"  # the trial's heads on the same encoder's embedding
OPTIONAL_HEADER = ("encoder_lr", "fraction")  # in a run's header only when set (older results lack them)


def parse_epochs(text: str) -> list[int]:
    """Comma-separated whole numbers of epochs, each 1 or more; UsageError otherwise."""
    try:
        epochs = sorted({int(t) for t in text.split(",")})
    except ValueError:
        epochs = []
    if not epochs or epochs[0] < 1:
        raise UsageError(f"--epochs wants whole numbers of 1 or more separated by commas, got {text!r}")
    return epochs


def recipe(init: str, encoder_lr: float | None) -> E2EConfig:
    """E2EConfig, with the encoder's learning rate for `init` set to `encoder_lr` when given (a pre-trained start
    at the from-scratch rate, say); UsageError unless it is a positive number."""
    if encoder_lr is None:
        return E2EConfig()
    if not encoder_lr > 0:
        raise UsageError(f"--encoder-lr wants a positive learning rate, got {encoder_lr:g}")
    return dataclasses.replace(E2EConfig(), **{f"{init}_lr": encoder_lr})


def parse_fraction(text: str) -> float:
    """The share of each fold's training programs to train on, in (0, 1]; UsageError otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 1.0:
        raise UsageError(f"--fraction wants a share of the training programs in (0, 1], got {text!r}")
    return value


def kept_fits(json_path: Path, header: dict, outer: list) -> dict[tuple[int, int], dict]:
    """The fits a stopped run kept in `json_path` (each with its test predictions), by (epochs, fold); UsageError
    when the file is unreadable or was written for another run (its `header` differs) or its folds."""
    try:
        kept = json.loads(json_path.read_text())
    except (OSError, ValueError) as err:
        raise UsageError(f"--resume cannot read {json_path}: {err}") from None
    keys = list(header) + [k for k in OPTIONAL_HEADER if k in kept and k not in header]  # either side's options
    other = {k: (kept.get(k), header.get(k)) for k in keys if kept.get(k) != header.get(k)}
    if other:
        said = ", ".join(f"{k} {a!r} (this run {b!r})" for k, (a, b) in other.items())
        raise UsageError(f"--resume: {json_path} was written by another run: {said}")
    fits = {}
    for fit in kept.get("fits", []):
        e, k, pred = fit.get("epochs"), fit.get("fold"), fit.get("pred")
        if pred is None or not isinstance(e, int) or not isinstance(k, int) or not 0 <= k < len(outer) or len(pred) != len(outer[k][1]):
            raise UsageError(f"--resume: {json_path} holds a fit without predictions for this run's folds "
                             f"(epochs {e}, fold {k})")
        fits[(e, k)] = fit
    return fits


def run_fits(jobs: list, on_done: Callable[[tuple, Any], None], fits: list, json_path: Path | None,
             use_ray: bool = True, kept: int = 0) -> int:
    """Run the fits (`data_efficiency.run_jobs`); 0 when all finished, else one line and the exit status: 130 when
    interrupted (Ctrl-C, SIGTERM), 1 when a fit failed or its worker died. The fits done (`fits`, the `kept` ones
    of an earlier sitting first, which `on_done` fills and keeps in `json_path`) are named in the line."""
    try:
        run_jobs(jobs, use_ray, on_done)
        return 0
    except (Exception, KeyboardInterrupt) as err:
        said = f"; the {len(fits)} fits done are in {json_path}" if json_path and fits else ""
        if isinstance(err, KeyboardInterrupt):
            print(f"trial_end_to_end: interrupted after {len(fits)} of {len(jobs) + kept} fits{said}", file=sys.stderr)
            return 130
        why = (str(err).strip().splitlines() or [""])[0]
        print(f"trial_end_to_end: an end-to-end fit failed ({type(err).__name__}: {why}){said}", file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--encoder", required=True, metavar="DIR", help="the model folder whose architecture is trained")
    ap.add_argument("--task", default="vectorize", help=f"a gain task of the trial ({', '.join(GAIN_TASKS)})")
    ap.add_argument("--init", default="scratch", choices=INITS,
                    help="scratch: random weights (the reference); finetune: the encoder's pre-trained weights")
    ap.add_argument("--epochs", default="3", metavar="E,E,...")
    ap.add_argument("--controls", default="ir2vec,random",
                    help="frozen representations whose trial heads are scored on the same folds, beside the "
                         "encoder's own (empty: none)")
    ap.add_argument("--encoder-lr", type=float, default=None, metavar="LR",
                    help="the encoder's learning rate (default E2EConfig's: 5e-4 from random weights, 1e-4 from "
                         "pre-trained ones)")
    ap.add_argument("--fraction", default="1", metavar="F",
                    help="train every model on this share of each fold's training programs (default 1: all)")
    ap.add_argument("--seed", type=int, default=0, help="the draw of the trial's folds")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--resume", action="store_true",
                    help="train only the fits that --json does not already hold (a stopped run's)")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        epochs = parse_epochs(args.epochs)
        config = recipe(args.init, args.encoder_lr)
        fraction = parse_fraction(args.fraction)
        if args.task not in GAIN_TASKS:
            raise UsageError(f"unknown task {args.task!r}; choose from {', '.join(GAIN_TASKS)}")
        if not Path(args.encoder).is_dir():
            raise UsageError(f"--encoder wants a model folder, got {args.encoder!r}")
        if args.resume and not (args.json and args.json.is_file()):
            raise UsageError("--resume wants --json naming the file a stopped run kept its fits in")
        from mirtune.embedding import load_encoder
        from mirtune.tasks import registry

        name, table, progs = trial_table(args.task)
        outer = group_kfold(np.arange(len(table)), progs, args.folds, seed=args.seed)
        if fraction < 1:  # the same training programs for the end-to-end fits and the frozen heads
            outer = fewer_labels(outer, progs, fraction, args.seed)
        header = ({"task": args.task, "encoder": args.encoder, "init": args.init, "seed": args.seed,
                   "folds": len(outer)} | ({} if args.encoder_lr is None else {"encoder_lr": args.encoder_lr})
                  | ({} if fraction == 1 else {"fraction": fraction}))
        done = kept_fits(args.json, header, outer) if args.resume else {}
        reps = representations([f"{FROZEN}={args.encoder}"], [c for c in args.controls.split(",") if c])
        matrices = {n: table_matrix(table, name, emb, note=lambda m: None) for n, emb in reps.items()}
        per_group = draw_shares(table, matrices, outer, progs, len(registry.get(name).context_names), 2, ANCHORS,
                                (0,))  # the trial's heads on the frozen representations, the same folds
        per_group.pop("oracle")
        ir = [str(program_ir(s)) for s in table.sources]
        context = table_context(table, name, ir)
        load_samples(sorted(set(ir)), load_encoder(args.encoder))  # built once, before the workers read them
        gains = table.train_gains()
        jobs = [((e, k), end_to_end_job,
                 (args.init, args.encoder, [ir[i] for i in tr], context[tr], gains[tr], [ir[i] for i in te],
                  context[te], dataclasses.replace(config, epochs=e), k, "gain"))
                for e in epochs for k, (tr, te) in enumerate(outer) if (e, k) not in done]
        chosen = {e: np.full(len(table), -1, dtype=np.int64) for e in epochs}
        fits = [f for (e, _), f in sorted(done.items()) if e in chosen]
        print(f"{args.task}: {len(table)} groups, {len(outer)} folds by {GAIN_TASKS[args.task][3]} (draw {args.seed})"
              + (f", {fraction:g} of each fold's training programs" if fraction < 1 else "")
              + f"; {len(jobs)} end-to-end fits from {'random' if args.init == 'scratch' else 'pre-trained'} weights"
              + (f" ({len(fits)} kept from {args.json})" if fits else ""), flush=True)
        for f in fits:
            chosen[f["epochs"]][outer[f["fold"]][1]] = f["pred"]
        total = len(jobs) + len(fits)

        def on_done(key: tuple, res: tuple) -> None:
            (e, k), (pred, info) = key, res
            chosen[e][outer[k][1]] = pred
            fits.append({"epochs": e, "fold": k, **{n: round(float(v), 4) for n, v in info.items()},
                         "pred": [int(c) for c in pred]})
            print(f"{e} epochs, fold {k}: {info['fit_s']:.0f} s, {info['steps']} steps, final loss "
                  f"{info['final_loss']:.3f}", flush=True)
            if args.json:  # each finished fit kept, with its predictions, so that --resume loses none of them
                write_result(args.json, {**header, "status": f"partial: {len(fits)}/{total} fits", "fits": fits})

        status = run_fits(jobs, on_done, fits, args.json, kept=len(fits))
        if status:
            return status
    except MirtuneError as err:
        print(f"trial_end_to_end: {err.line()}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before any fit began (the frozen heads, the encoder inputs)
        print("trial_end_to_end: interrupted before the first fit", file=sys.stderr)
        return 130
    ours = {f"{args.init}, {e} epochs": share_of_oracle(table.speedups, c) for e, c in chosen.items()}
    shares = {n: round(geomean(v), 4) for n, v in {**ours, **per_group}.items()}
    for n, v in shares.items():
        print(f"{args.task} draw {args.seed}  {n:22s} {v:.3f}", flush=True)
    spans = {n: {f"vs {ref}": paired_interval(v, per_group[ref], progs, geomean) for ref in per_group}
             for n, v in ours.items()}
    for n, against in spans.items():
        for ref, (d, lo, hi) in against.items():
            print(f"{args.task} draw {args.seed}  {n:22s} {ref:24s} {d:+.4f}  [{lo:+.4f}, {hi:+.4f}]", flush=True)
    result = {**header, "shares": shares, "intervals": spans,
              "fits": [{n: v for n, v in f.items() if n != "pred"} for f in fits], "config": config.to_dict(),
              "seconds": round(time.monotonic() - t0, 1)}
    if args.json:
        write_result(args.json, result)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
