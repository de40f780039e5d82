"""The from-scratch reference of the encoder trial: an encoder's architecture from random weights, trained end to
end on a gain task's objective in the trial's program-grouped folds, so that a frozen encoder's label curve there
(`encoder_trial.py --label-fractions`) has the issue's reference to be measured against.

    .venv/bin/python benchmarks/trial_scratch.py --encoder build/real-medium-long-step5600 --task vectorize \
        --epochs 3,6 [--seed 0] [--json benchmarks/results/trial_scratch_vectorize.json]

Folds: `encoder_trial`'s (10, grouped by program, drawn with `--seed`); every training row. The model:
`data_efficiency.end_to_end_job("scratch", ...)` with `finetune.E2EConfig` but for the epochs (each of `--epochs`),
one CPU per fit on a local Ray cluster. Prints and saves the share of the oracle over every group for each number
of epochs, beside the default and best fixed configurations of the same folds.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_trial import GAIN_TASKS, trial_table  # noqa: E402

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.experiments.data_efficiency import end_to_end_job, run_jobs  # noqa: E402
from mirtune.experiments.finetune import E2EConfig, load_samples  # noqa: E402
from mirtune.paths import write_result  # noqa: E402
from mirtune.predict.predictor import program_ir, table_context  # noqa: E402
from mirtune.tasks.measured import best_fixed_per_group, geomean, group_kfold, share_of_oracle  # noqa: E402


def parse_epochs(text: str) -> list[int]:
    """Comma-separated whole numbers of epochs, each 1 or more; UsageError otherwise."""
    try:
        epochs = sorted({int(t) for t in text.split(",")})
    except ValueError:
        epochs = []
    if not epochs or epochs[0] < 1:
        raise UsageError(f"--epochs wants whole numbers of 1 or more separated by commas, got {text!r}")
    return epochs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--encoder", required=True, metavar="DIR", help="the model folder whose architecture is trained")
    ap.add_argument("--task", default="vectorize", help=f"a gain task of the trial ({', '.join(GAIN_TASKS)})")
    ap.add_argument("--epochs", default="3", metavar="E,E,...")
    ap.add_argument("--seed", type=int, default=0, help="the draw of the trial's folds")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        epochs = parse_epochs(args.epochs)
        if args.task not in GAIN_TASKS:
            raise UsageError(f"unknown task {args.task!r}; choose from {', '.join(GAIN_TASKS)}")
        if not Path(args.encoder).is_dir():
            raise UsageError(f"--encoder wants a model folder, got {args.encoder!r}")
        from mirtune.embedding import load_encoder

        name, table, progs = trial_table(args.task)
        outer = group_kfold(np.arange(len(table)), progs, args.folds, seed=args.seed)
        ir = [str(program_ir(s)) for s in table.sources]
        context = table_context(table, name, ir)
        load_samples(sorted(set(ir)), load_encoder(args.encoder))  # built once, before the workers read them
        gains = table.train_gains()
        jobs = [((e, k), end_to_end_job,
                 ("scratch", args.encoder, [ir[i] for i in tr], context[tr], gains[tr], [ir[i] for i in te],
                  context[te], dataclasses.replace(E2EConfig(), epochs=e), k, "gain"))
                for e in epochs for k, (tr, te) in enumerate(outer)]
        print(f"{args.task}: {len(table)} groups, {len(outer)} folds by {GAIN_TASKS[args.task][3]} (draw {args.seed}); "
              f"{len(jobs)} end-to-end fits from random weights", flush=True)
        chosen = {e: np.full(len(table), -1, dtype=np.int64) for e in epochs}
        fits: list[dict] = []

        def on_done(key: tuple, res: tuple) -> None:
            (e, k), (pred, info) = key, res
            chosen[e][outer[k][1]] = pred
            fits.append({"epochs": e, "fold": k, **{n: round(float(v), 4) for n, v in info.items()}})
            print(f"{e} epochs, fold {k}: {info['fit_s']:.0f} s, {info['steps']} steps, final loss "
                  f"{info['final_loss']:.3f}", flush=True)
            if args.json:  # each finished fit kept, so that a run that dies loses none of them
                write_result(args.json, {"task": args.task, "encoder": args.encoder, "seed": args.seed,
                                         "status": f"partial: {len(fits)}/{len(jobs)} fits", "fits": fits})

        try:
            run_jobs(jobs, True, on_done)
        except Exception as err:  # a worker that died, or Ctrl-C's Ray error: one line, the fits done are kept
            kept = f"; the {len(fits)} fits done are in {args.json}" if args.json and fits else ""
            why = (str(err).strip().splitlines() or [""])[0]
            print(f"trial_scratch: an end-to-end fit failed ({type(err).__name__}: {why}){kept}", file=sys.stderr)
            return 1
    except MirtuneError as err:
        print(f"trial_scratch: {err.line()}", file=sys.stderr)
        return 2
    shares = {f"scratch, {e} epochs": round(geomean(share_of_oracle(table.speedups, c)), 4) for e, c in chosen.items()}
    shares["default"] = round(geomean(share_of_oracle(table.speedups, np.zeros(len(table), dtype=int))), 4)
    shares["best fixed"] = round(geomean(share_of_oracle(table.speedups, best_fixed_per_group(table.speedups, outer))),
                                 4)
    for n, v in shares.items():
        print(f"{args.task} draw {args.seed}  {n:22s} {v:.3f}", flush=True)
    result = {"task": args.task, "encoder": args.encoder, "seed": args.seed, "folds": len(outer), "shares": shares,
              "fits": fits, "config": E2EConfig().to_dict(), "seconds": round(time.monotonic() - t0, 1)}
    if args.json:
        write_result(args.json, result)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
