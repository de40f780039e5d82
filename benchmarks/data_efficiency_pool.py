"""Pool measured-task data-efficiency runs that held out disjoint applications into one share per method.

    python benchmarks/data_efficiency_pool.py benchmarks/results/data_efficiency_cuda_blocks_h200_e2e.json \
        benchmarks/results/data_efficiency_cuda_blocks_h200_scratch_all.json [--fraction 1.0]

Each run's share of the oracle is a geometric mean over its comparison folds' test groups, so the pooled share is
exp of the group-weighted mean of their logs: what one run over all those folds would report. The first repeat's
point is used (at fraction 1.0 every repeat trains on the same applications). Methods missing from a run are left out.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path


def pooled(runs: list[dict], fraction: float) -> dict[str, float]:
    """Method -> the pooled share at `fraction` over runs whose comparison folds are disjoint (ValueError if not)."""
    seen: set[str] = set()
    for r in runs:
        overlap = seen & set(r["comparison_folds"])
        if overlap:
            raise ValueError(f"the runs share held-out applications: {', '.join(sorted(overlap))}")
        seen |= set(r["comparison_folds"])
    methods = [m for m in runs[0]["curves"] if all(m in r["curves"] for r in runs)]
    out = {}
    for m in methods:
        logs, groups = 0.0, 0
        for r in runs:
            point = next((c for c in r["curves"][m] if c["fraction"] == fraction), None)
            if point is None:
                raise ValueError(f"{m} has no point at fraction {fraction:g} in a run")
            logs += r["comparison_groups"] * math.log(point["shares"][0])
            groups += r["comparison_groups"]
        out[m] = math.exp(logs / groups)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("runs", nargs="+", help="JSON of `mirtune evaluate data-efficiency TASK` (measured tasks)")
    p.add_argument("--fraction", type=float, default=1.0)
    args = p.parse_args(argv)
    try:
        runs = [json.loads(Path(f).read_text()) for f in args.runs]
        shares = pooled(runs, args.fraction)
    except (OSError, ValueError, KeyError) as exc:  # a missing or foreign file, overlapping folds
        print(f"data_efficiency_pool: {exc}", file=sys.stderr)
        return 2
    folds = [a for r in runs for a in r["comparison_folds"]]
    print(f"{runs[0]['task']}, fraction {args.fraction:g}, {len(folds)} held-out applications "
          f"({sum(r['comparison_groups'] for r in runs)} test groups): {', '.join(folds)}")
    for m, s in shares.items():
        print(f"  {m:12s} {s:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
