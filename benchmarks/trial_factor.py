"""The issue's data-reduction factor in the trial's folds: from which share of the labels each representation's
frozen-head curve (`encoder_trial.py --label-fractions`, pooled over its draws) reaches an end-to-end model's score
with every label (`trial_end_to_end.py`, its best number of epochs; results of several draws of the folds are pooled
as the curves are, the geometric mean of each draw's best), and whether that reference beats the best fixed
configuration of the same folds (a factor against a reference that a fixed configuration beats is not claimed).

    .venv/bin/python benchmarks/trial_factor.py benchmarks/results/trial_scratch12_vectorize.json \
        benchmarks/results/encoder_trial_fractions_vectorize.json [more end-to-end results of the same task]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.experiments.data_efficiency import reduction_factor  # noqa: E402
from mirtune.tasks.measured import geomean  # noqa: E402

CODE_FREE = ("default", "oracle")  # curve rows that are not a representation (best fixed is one of the curves)
END_TO_END = ("scratch,", "finetune,")  # how trial_end_to_end.py's share names begin


def reference(results: list[dict]) -> tuple[str, float, float]:
    """(name, share, best fixed share) of the best end-to-end model over `results` (one task); with results of
    several draws, each draw's best, pooled: the geometric mean of their shares and of their best fixed shares."""
    by_draw: dict[int, list[tuple[str, float, float]]] = {}
    for r in results:
        by_draw.setdefault(r.get("seed", 0), []).extend(
            (name, share, r["shares"]["best fixed"]) for name, share in r["shares"].items()
            if name.startswith(END_TO_END))
    best = {d: max(rows, key=lambda row: row[1]) for d, rows in sorted(by_draw.items()) if rows}
    if not best:
        raise UsageError("no end-to-end shares in the results given (were they written by trial_end_to_end.py?)")
    if len(best) == 1:
        return next(iter(best.values()))
    return (f"each draw's best end-to-end model, pooled over draws {', '.join(map(str, best))}",
            round(geomean([b[1] for b in best.values()]), 4), round(geomean([b[2] for b in best.values()]), 4))


def factors(trial: dict, task: str, ref_share: float) -> dict[str, float | None]:
    """Each curve's factor against `ref_share`: 1 / the smallest share of the labels from which on its pooled score
    stays at or above it (None: not even with every label)."""
    curve = {float(f): scores for f, scores in trial["fractions"][task]["shares"].items()}
    curve[1.0] = trial[task]  # every label: the trial's own scores
    shares = sorted(curve)
    return {name: reduction_factor(shares, [1 - curve[f][name] for f in shares], 1 - ref_share)[0]
            for name in trial[task] if name not in CODE_FREE}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="trial_end_to_end.py JSON files, then the trial's JSON")
    args = ap.parse_args(argv)
    try:
        *ends, trial_path = args.results
        if not ends:
            raise UsageError("give one or more trial_end_to_end.py results, then the encoder trial's JSON")
        loaded = []
        for p in args.results:
            try:
                loaded.append(json.loads(p.read_text()))
            except (OSError, ValueError) as err:
                raise UsageError(f"cannot read {p}: {err}") from None
        *results, trial = loaded
        for p, r in zip(ends, results):
            if "shares" not in r:  # a run still going or stopped: trial_end_to_end.py --resume finishes it
                raise UsageError(f"{p} holds no shares ({r.get('status', 'not written by trial_end_to_end.py')}); "
                                 "finish the run with trial_end_to_end.py --resume")
        tasks = {r.get("task") for r in results}
        task = tasks.pop() if len(tasks) == 1 else None
        if task is None or "fractions" not in trial or task not in trial["fractions"]:
            raise UsageError(f"the end-to-end results must be of one task that {trial_path} has label fractions of")
        name, share, fixed = reference(results)
    except MirtuneError as err:
        print(f"trial_factor: {err.line()}", file=sys.stderr)
        return 2
    for r in results:
        print(f"{task} draw {r.get('seed', 0)}: " + ", ".join(f"{n} {v:.4f}" for n, v in r["shares"].items()
                                                           if n.startswith((*END_TO_END, "best fixed"))))
    verdict = "above" if share > fixed else "at" if share == fixed else "below"
    print(f"{task}: reference {name} {share:.4f}, {verdict} the best fixed configuration of its folds ({fixed:.4f})")
    for rep, value in factors(trial, task, share).items():
        print(f"  {rep:28s} reaches it " + ("never" if value is None else "only with every label" if value == 1
                                            else f"from 1/{value:g} of the labels (factor {value:g})"))
    if share <= fixed:
        print("  (a reference no better than a fixed configuration: no factor is claimed against it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
