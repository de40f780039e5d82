"""The issue's data-reduction factor in the trial's folds: from which share of the labels each representation's
frozen-head curve (`encoder_trial.py --label-fractions`, pooled over its draws) reaches an end-to-end model's score
with every label (`trial_end_to_end.py`, its best number of epochs; results of several draws of the folds are pooled
as the curves are, the geometric mean of each draw's best), and whether that reference beats the best fixed
configuration of the same folds (a factor against a reference that a fixed configuration beats is not claimed).

    .venv/bin/python benchmarks/trial_factor.py benchmarks/results/trial_scratch12_vectorize.json \
        benchmarks/results/encoder_trial_fractions_vectorize.json [more end-to-end results of the same task] \
        [--png benchmarks/results/trial_factor_vectorize.png]
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


def read_json(path: Path) -> dict:
    """The JSON object in `path`; UsageError (one line) when it cannot be read."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None


def read_results(paths: list[Path]) -> list[dict]:
    """trial_end_to_end.py's finished results in `paths`; UsageError naming a run still going or stopped."""
    results = [read_json(p) for p in paths]
    for p, r in zip(paths, results):
        if "shares" not in r:  # a run still going or stopped: trial_end_to_end.py --resume finishes it
            raise UsageError(f"{p} holds no shares ({r.get('status', 'not written by trial_end_to_end.py')}); "
                             "finish the run with trial_end_to_end.py --resume")
    return results


def draw_best(results: list[dict]) -> dict[int, tuple[str, float, float]]:
    """Each draw's (name, share, best fixed share) of its best end-to-end model over `results` (one task), by draw;
    UsageError when they hold no end-to-end share."""
    by_draw: dict[int, list[tuple[str, float, float]]] = {}
    for r in results:
        by_draw.setdefault(r.get("seed", 0), []).extend(
            (name, share, r["shares"]["best fixed"]) for name, share in r["shares"].items()
            if name.startswith(END_TO_END))
    best = {d: max(rows, key=lambda row: row[1]) for d, rows in sorted(by_draw.items()) if rows}
    if not best:
        raise UsageError("no end-to-end shares in the results given (were they written by trial_end_to_end.py?)")
    return best


def reference(results: list[dict]) -> tuple[str, float, float]:
    """(name, share, best fixed share) of the best end-to-end model over `results` (one task); with results of
    several draws, each draw's best, pooled: the geometric mean of their shares and of their best fixed shares."""
    best = draw_best(results)
    if len(best) == 1:
        return next(iter(best.values()))
    return (f"each draw's best end-to-end model, pooled over draws {', '.join(map(str, best))}",
            round(geomean([b[1] for b in best.values()]), 4), round(geomean([b[2] for b in best.values()]), 4))


def curves(trial: dict, task: str) -> dict[float, dict[str, float]]:
    """The trial's pooled scores of `task` by share of the labels, every label (the trial's own scores) included."""
    return {float(f): scores for f, scores in trial["fractions"][task]["shares"].items()} | {1.0: trial[task]}


def factors(trial: dict, task: str, ref_share: float) -> dict[str, float | None]:
    """Each curve's factor against `ref_share`: 1 / the smallest share of the labels from which on its pooled score
    stays at or above it (None: not even with every label)."""
    curve = curves(trial, task)
    shares = sorted(curve)
    return {name: reduction_factor(shares, [1 - curve[f][name] for f in shares], 1 - ref_share)[0]
            for name in trial[task] if name not in CODE_FREE}


def chart(trial: dict, task: str, reference_line: tuple[str, float, float], png: Path) -> Path:
    """Each representation's curve against the share of the labels (log scale), the end-to-end reference and the best
    fixed configuration of its folds as horizontal lines: where a curve meets the reference is its factor."""
    from mirtune.figures import pyplot

    plt = pyplot()
    name, share, fixed = reference_line
    curve = curves(trial, task)
    xs = sorted(curve)
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for rep in [n for n in trial[task] if n not in CODE_FREE]:
        fixed_curve = rep == "best fixed"  # the code-free curve, drawn as the baselines are
        ax.plot(xs, [curve[f][rep] for f in xs], marker="o", markersize=4, label=rep,
                color="gray" if fixed_curve else None, linestyle="--" if fixed_curve else "-")
    ax.axhline(share, color="black", linewidth=1.4, label=f"end to end, every label ({share:.3f})")
    ax.axhline(fixed, color="black", linewidth=0.8, linestyle=":", label=f"best fixed of its folds ({fixed:.3f})")
    return finish_chart(fig, ax, xs, "share of each fold's training programs (frozen heads)",
                        f"{task}: frozen curves against {name}"[:110], 6, png)


def finish_chart(fig, ax, xs: list[float], xlabel: str, title: str, legend_size: int, png: Path) -> Path:
    """A share-of-the-labels chart's axes (log scale, a tick at each share), title and legend, saved to `png`."""
    from mirtune.figures import save

    ax.set_xscale("log")
    ax.set_xticks(xs, [f"{f:g}" for f in xs])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of the oracle")
    ax.set_title(title, fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=legend_size)
    fig.tight_layout()
    return save(fig, png)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="trial_end_to_end.py JSON files, then the trial's JSON")
    ap.add_argument("--png", type=Path, default=None, help="also draw the curves against the reference here")
    args = ap.parse_args(argv)
    try:
        *ends, trial_path = args.results
        if not ends:
            raise UsageError("give one or more trial_end_to_end.py results, then the encoder trial's JSON")
        results, trial = read_results(ends), read_json(trial_path)
        cut = [str(p) for p, r in zip(ends, results) if r.get("fraction", 1.0) != 1.0]
        if cut:  # the reference is a model given every label; trial_curve.py compares models on fewer
            raise UsageError(f"{cut[0]} was trained on a share of the labels (--fraction); the reference needs every "
                             "label (trial_curve.py compares the curves at fewer)")
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
    if args.png:
        print(f"wrote {chart(trial, task, (name, share, fixed), args.png)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
