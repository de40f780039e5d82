"""How noisy the GPU block-size measurements are: the kernels measured twice (5% of each GPU run, ten kernels
apart) against their first measurement.

    python benchmarks/cuda_noise.py [--data datasets/cuda-h200] [--repeats datasets/cuda-h200-repeats]
        [--json benchmarks/results/cuda_noise_h200.json]

Reports, over the points measured twice: the median and 90th percentile of |log(second / first)|; over the groups
(kernel, matrix size): how often the fastest block is the same in both runs, and the share of the second run's
best time that the first run's best block reaches there (geometric mean): the ceiling a predictor trained on one
run can reach on another, and the margin a predictor must beat the best fixed block by to count.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mirtune.paths import write_result  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.tasks.cuda_blocks import SPEC  # noqa: E402
from mirtune.tasks.measured import read_rows  # noqa: E402


def noise(data: Path, repeats: Path) -> dict:
    """The noise figures of the module doc, from the rows under `data` and `repeats`."""
    keys = ["program", "input_size", "block_x", "block_y"]
    first = read_rows([data], SPEC.sweep)
    again = read_rows([repeats], SPEC.sweep)
    ok = lambda df: df[df["status"] == "ok"][keys + ["reported_median"]]  # noqa: E731
    both = ok(first).merge(ok(again), on=keys, suffixes=("_1", "_2"))
    dev = np.abs(np.log(both["reported_median_2"] / both["reported_median_1"]))
    same, share = [], []
    for _, g in both.groupby(["program", "input_size"]):
        if len(g) < 2:
            continue
        b1, b2 = g["reported_median_1"].idxmin(), g["reported_median_2"].idxmin()
        same.append(b1 == b2)
        share.append(g["reported_median_2"].min() / g.loc[b1, "reported_median_2"])
    return {"data": str(data), "repeats": str(repeats), "kernels": int(both["program"].nunique()),
            "points": int(len(both)), "groups": len(share),
            "median_abs_log_ratio": float(np.median(dev)), "p90_abs_log_ratio": float(np.quantile(dev, 0.9)),
            "same_best_block": float(np.mean(same)),
            "first_best_share_of_second_oracle": float(np.exp(np.mean(np.log(share)))),
            "worst_group_share": float(np.min(share))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO / "datasets" / "cuda-h200")
    ap.add_argument("--repeats", type=Path, default=REPO / "datasets" / "cuda-h200-repeats")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        r = noise(args.data, args.repeats)
    except MirtuneError as err:
        print(f"cuda_noise: {err.line()}", file=sys.stderr)
        return 2
    print(f"{r['kernels']} kernels measured twice ({r['points']} points, {r['groups']} groups): median "
          f"|log ratio| {r['median_abs_log_ratio']:.4f}, p90 {r['p90_abs_log_ratio']:.4f}; the same best block in "
          f"{r['same_best_block']:.0%} of groups; the first run's best block reaches "
          f"{r['first_best_share_of_second_oracle']:.3f} of the second run's best time (worst group "
          f"{r['worst_group_share']:.3f})")
    if args.json:
        write_result(args.json, r)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
