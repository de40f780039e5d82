"""Why the trial's heads score as they do: on each gain task of the encoder trial, does a program that one
representation places near another want the same configuration? `vectorize_signal.py`'s measure (for GCC's loop
families), on the trial's tasks and units (programs), for the trial's encoders.

    .venv/bin/python benchmarks/trial_signal.py --encoder real-medium-5600=build/real-medium-long-step5600 \
        [--tasks vectorize,openmp,cuda_blocks] [--json benchmarks/results/trial_signal.json]

For every group (a program and its input) the configuration best for another program's group is tried on it (its
share of this group's oracle), the other group chosen
- at random among the other programs' groups (blind transfer: what moving a label without looking gives),
- as the nearest other-program group by each representation (cosine of standardised vectors; 1 neighbour, and the
  configuration best on average over 5, as a kNN head would), the task's context features counting as one more
  representation where the task has them,
- as the best other-program group for it (the ceiling of any such transfer),
beside the default, the best fixed configuration over the other programs and the oracle; and, over every pair of
groups of different programs, the rank correlation between a representation's similarity and the similarity of
the two groups' log speedups. No head is fitted: this is what the similarity itself offers every head. Each
nearest-5 share comes with its paired 95% interval against the blind transfer and against IR2Vec's nearest 5
(programs resampled). Prints the figures; saves JSON and a PNG chart beside it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_trial import GAIN_TASKS, paired_interval, representations, trial_table  # noqa: E402
from vectorize_signal import (NEIGHBOURS, nearest_transfer, share_chart, share_matrix, spearman,  # noqa: E402
                              standardised_cosine)

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.paths import write_result  # noqa: E402
from mirtune.predict.predictor import program_ir, program_matrix, table_context  # noqa: E402
from mirtune.tasks.measured import best_fixed_per_group, geomean, leave_one_app_out  # noqa: E402

BLIND = "blind transfer"
CONTEXT = "context features"


def analyse(task: str, vectors: dict[str, np.ndarray], table, units: list[str]) -> dict:
    """The figures of one trial task (see the module doc); `vectors`: name -> [groups, d] representation."""
    s = table.speedups
    rows = np.flatnonzero(np.isfinite(np.nanmax(s, axis=1)))
    unit = np.asarray(units)
    other = unit[:, None] != unit[None, :]
    shares, gains = share_matrix(s), table.train_gains()
    n = len(unit)
    log_t = np.log(shares[:, table.labels_best()])  # [i, j]: group i under group j's best configuration
    per_group: dict[str, np.ndarray] = {
        "default": shares[:, 0],
        "best fixed (other programs)": shares[np.arange(n), best_fixed_per_group(
            s, [(tr, te) for tr, te, _ in leave_one_app_out(units)])],
        BLIND: np.exp((log_t * other).sum(1) / other.sum(1)),
    }
    label_sim = np.corrcoef(gains)
    iu = np.triu_indices(n, 1)
    cross = other[iu]
    correlation = {}
    for name, X in vectors.items():
        sim = standardised_cosine(X)
        per_group[f"nearest by {name}"] = nearest_transfer(sim, other, gains, shares, 1)
        per_group[f"{NEIGHBOURS} nearest by {name}"] = nearest_transfer(sim, other, gains, shares, NEIGHBOURS)
        correlation[name] = round(spearman(sim[iu][cross], label_sim[iu][cross]), 4)
        del sim
    per_group["best other-program group (ceiling)"] = np.exp(np.where(other, log_t, -np.inf).max(axis=1))
    figures = {name: round(geomean(v[rows]), 4) for name, v in per_group.items()}
    refs = [BLIND] + [f"{NEIGHBOURS} nearest by ir2vec"] * (f"{NEIGHBOURS} nearest by ir2vec" in per_group)
    intervals = {name: {f"vs {ref}": paired_interval(v[rows], per_group[ref][rows], unit[rows], geomean)
                        for ref in refs if ref != name}
                 for name, v in per_group.items() if name.startswith(f"{NEIGHBOURS} nearest")}
    return {"task": task, "groups": int(len(rows)), "programs": int(len(set(unit[rows]))),
            "share_of_oracle": figures, "intervals": intervals, "code_label_rank_correlation": correlation}


def show(result: dict) -> None:
    print(f"\n{result['task']}: {result['groups']} groups of {result['programs']} programs")
    for name, v in result["share_of_oracle"].items():
        spans = "".join(f"   {ref} {d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]"
                        for ref, d in result["intervals"].get(name, {}).items())
        print(f"  {name:44s} {v:.4f}{spans}", flush=True)
    print("  rank correlation of similarity with label similarity, other-program pairs: "
          + ", ".join(f"{k} {v:+.3f}" for k, v in result["code_label_rank_correlation"].items()), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--encoder", action="append", default=[], metavar="NAME=DIR", help="a model folder to try")
    ap.add_argument("--controls", default="ir2vec,random", help="baseline representations")
    ap.add_argument("--tasks", default="vectorize,openmp,cuda_blocks")
    ap.add_argument("--json", type=Path, default=REPO / "benchmarks" / "results" / "trial_signal.json")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        tasks = args.tasks.split(",")
        unknown = [t for t in tasks if t not in GAIN_TASKS]
        if unknown:
            raise UsageError(f"unknown task {unknown[0]!r}; choose from {', '.join(GAIN_TASKS)}")
        reps = representations(args.encoder, [c for c in args.controls.split(",") if c])
        results = []
        for task in tasks:
            name, table, units = trial_table(task)
            vectors = {rep: program_matrix(table.sources, name, emb, context=False) for rep, emb in reps.items()}
            context = table_context(table, name, [str(program_ir(p)) for p in table.sources])
            if context.shape[1]:
                vectors[CONTEXT] = context
            results.append(analyse(task, vectors, table, units))
            show(results[-1])
    except MirtuneError as err:
        print(f"trial_signal: {err.line()}", file=sys.stderr)
        return 2
    write_result(args.json, {"command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                             "results": results})
    png = args.json.with_suffix(".png")
    share_chart([(f"{r['task']}: {r['groups']} groups, {r['programs']} programs", r["share_of_oracle"])
                 for r in results], png, BLIND)
    print(f"\nwrote {args.json} and {png} ({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
