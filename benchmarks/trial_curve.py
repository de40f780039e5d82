"""Learning from scratch against the frozen heads as the labels get fewer: `trial_end_to_end.py` results of one task
and start at several `--fraction`s (a result without one has every label) and draws of the folds. At each share of
the labels, each draw's best end-to-end model against the frozen representations' heads of the same folds and
training programs, pooled over the draws every share has (the geometric mean, as trial_factor.py pools); and the
factor of each frozen curve at each share F: F / the smallest share G from which on it stays at or above the
end-to-end model of F (`data_efficiency.reduction_factor` on the shares up to F).

    .venv/bin/python benchmarks/trial_curve.py benchmarks/results/trial_scratch_shipped_vectorize_*d?.json \
        [--png benchmarks/results/trial_curve_vectorize.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from trial_factor import END_TO_END, draw_best, finish_chart, read_results  # noqa: E402

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.experiments.data_efficiency import reduction_factor  # noqa: E402
from mirtune.tasks.measured import geomean  # noqa: E402

NOT_FROZEN = ("default", "oracle")  # share rows that are neither end to end nor a frozen head (best fixed is kept)
E2E = "end to end"  # the curve of each draw's best end-to-end model


def by_share(results: list[dict]) -> dict[float, dict[int, dict]]:
    """The results by share of the labels, then by draw; UsageError when they mix tasks or starts, or two are of the
    same share and draw."""
    if len({r.get("task") for r in results}) != 1 or len({r.get("init") for r in results}) != 1:
        raise UsageError("the results must all be of one task and one start (--init)")
    out: dict[float, dict[int, dict]] = {}
    for r in results:
        share, draw = float(r.get("fraction", 1.0)), r.get("seed", 0)
        if draw in out.setdefault(share, {}):
            raise UsageError(f"two results of draw {draw} at {share:g} of the labels")
        out[share][draw] = r
    return out


def curve(results: list[dict]) -> dict:
    """Per share: each draw's scores (the best end-to-end model as `E2E`, then every frozen head's share) over the
    draws every share has, their pooled scores, and how many draws the frozen encoder's heads are above / below the
    end-to-end model; UsageError when no draw is at every share."""
    shares = by_share(results)
    draws = sorted(set.intersection(*(set(d) for d in shares.values())))
    if not draws:
        raise UsageError("no draw of the folds is at every share of the labels given: "
                         + "; ".join(f"{s:g}: draws {sorted(d)}" for s, d in sorted(shares.items())))
    out: dict = {"task": results[0].get("task"), "init": results[0].get("init"), "draws": draws, "shares": {}}
    for share, found in sorted(shares.items()):
        best = draw_best([found[d] for d in draws])
        per_draw = {d: {E2E: best[d][1]} | {n: v for n, v in found[d]["shares"].items()
                                             if not n.startswith(END_TO_END) and n not in NOT_FROZEN}
                    for d in draws}
        names = list(per_draw[draws[0]])
        diffs = [per_draw[d]["frozen"] - per_draw[d][E2E] for d in draws] if "frozen" in names else []
        out["shares"][share] = {"draws": per_draw,
                                "pooled": {n: round(geomean([per_draw[d][n] for d in draws]), 4) for n in names},
                                "frozen above": sum(x > 0 for x in diffs), "frozen below": sum(x < 0 for x in diffs)}
    return out


def factors(found: dict) -> dict[str, dict[float, float | None]]:
    """Each frozen curve's factor at each share F: F / the smallest share G <= F from which on its pooled score stays
    at or above the pooled end-to-end model of F (1: only at F itself; None: not even at F)."""
    pooled = {s: v["pooled"] for s, v in found["shares"].items()}
    names = [n for n in pooled[max(pooled)] if n != E2E]
    out: dict[str, dict[float, float | None]] = {}
    for name in names:
        for share in pooled:
            upto = [s for s in pooled if s <= share and name in pooled[s]]
            inverse = reduction_factor(upto, [1 - pooled[s][name] for s in upto], 1 - pooled[share][E2E])[0]
            out.setdefault(name, {})[share] = None if inverse is None else round(share * inverse, 2)
    return out


def chart(found: dict, png: Path) -> Path:
    """The pooled curves against the share of the labels (log scale): the end-to-end model's thick, the frozen
    heads' thin, best fixed dashed."""
    from mirtune.figures import pyplot

    plt = pyplot()
    xs = sorted(found["shares"])
    ys = {n: [found["shares"][x]["pooled"].get(n) for x in xs] for n in found["shares"][xs[-1]]["pooled"]}
    names = [n for n in ys if n == "frozen" or ys[n] != ys.get("frozen")]  # the shipped encoder's twin, once
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for name in names:
        style = ({"color": "black", "linewidth": 2.2} if name == E2E else
                 {"color": "gray", "linestyle": "--"} if name == "best fixed" else {})
        ax.plot(xs, ys[name], marker="o", markersize=4, label=f"{found['init']}, {name}" if name == E2E else name, **style)
    return finish_chart(fig, ax, xs, "share of each fold's training programs",
                        f"{found['task']}: end to end against the frozen heads, pooled over draws "
                        f"{', '.join(map(str, found['draws']))}", 7, png)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="trial_end_to_end.py JSON files (one task and start)")
    ap.add_argument("--png", type=Path, default=None, help="also draw the pooled curves here")
    args = ap.parse_args(argv)
    try:
        found = curve(read_results(args.results))
    except MirtuneError as err:
        print(f"trial_curve: {err.line()}", file=sys.stderr)
        return 2
    task, draws = found["task"], found["draws"]
    for share, at in found["shares"].items():
        for d in draws:
            print(f"{task} at {share:g}, draw {d}: " + ", ".join(f"{n} {v:.4f}" for n, v in at["draws"][d].items()))
        print(f"{task} at {share:g}, pooled over draws {', '.join(map(str, draws))}: "
              + ", ".join(f"{n} {v:.4f}" for n, v in at["pooled"].items()))
        if "frozen" in at["pooled"]:
            diff = at["pooled"]["frozen"] - at["pooled"][E2E]
            print(f"{task} at {share:g}: frozen - {E2E} {diff:+.4f}; frozen above in {at['frozen above']} of "
                  f"{len(draws)} draws, below in {at['frozen below']}")
    for name, by in factors(found).items():
        print(f"{name:20s} reaches the end-to-end model of each share " + ", ".join(
            f"{s:g}: " + ("never" if v is None else f"factor {v:g}") for s, v in by.items()))
    if args.png:
        print(f"wrote {chart(found, args.png)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
