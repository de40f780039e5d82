"""Does pre-training give an architecture a better start? One encoder's architecture trained end to end from its
pre-trained weights (`trial_end_to_end.py --init finetune`) against the same from random weights (`--init scratch`),
draw by draw of the trial's folds: each draw's best number of epochs on each side, their difference, and both pooled
as trial_factor.py pools a reference (the geometric mean of the draws' shares), over the draws both sides have.

    .venv/bin/python benchmarks/trial_start.py \
        --finetune benchmarks/results/trial_finetune_shipped_vectorize_d?.json \
        --scratch benchmarks/results/trial_scratch_shipped_vectorize_d?.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from trial_factor import draw_best, read_results  # noqa: E402

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.tasks.measured import geomean  # noqa: E402


def compare(finetune: list[dict], scratch: list[dict]) -> dict:
    """Per draw both sides have, (finetune's best share, scratch's best share, difference), and the pooled shares
    and the draws finetune is above / below; UsageError when the results are of several tasks, a side holds
    results of the other start, they are of several shares of the labels, or they share no draw."""
    if len({r.get("task") for r in finetune + scratch}) != 1:
        raise UsageError("the finetune and scratch results must all be of one task")
    if len({r.get("fraction", 1.0) for r in finetune + scratch}) != 1:
        raise UsageError("the finetune and scratch results must all be of one share of the labels (--fraction)")
    for side, results in (("finetune", finetune), ("scratch", scratch)):
        if any(r.get("init", side) != side for r in results):
            raise UsageError(f"--{side} wants results of trial_end_to_end.py --init {side}")
    ours, theirs = draw_best(finetune), draw_best(scratch)
    draws = sorted(set(ours) & set(theirs))
    if not draws:
        raise UsageError(f"no draw in common (finetune: {sorted(ours)}, scratch: {sorted(theirs)})")
    rows = {d: (ours[d][1], theirs[d][1], round(ours[d][1] - theirs[d][1], 4)) for d in draws}
    pooled = (round(geomean([r[0] for r in rows.values()]), 4), round(geomean([r[1] for r in rows.values()]), 4))
    return {"task": finetune[0].get("task"), "draws": rows, "pooled": pooled,
            "above": sum(r[2] > 0 for r in rows.values()), "below": sum(r[2] < 0 for r in rows.values())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--finetune", nargs="+", type=Path, required=True, help="trial_end_to_end.py --init finetune JSONs")
    ap.add_argument("--scratch", nargs="+", type=Path, required=True, help="trial_end_to_end.py --init scratch JSONs")
    args = ap.parse_args(argv)
    try:
        found = compare(read_results(args.finetune), read_results(args.scratch))
    except MirtuneError as err:
        print(f"trial_start: {err.line()}", file=sys.stderr)
        return 2
    for d, (ours, theirs, diff) in found["draws"].items():
        print(f"{found['task']} draw {d}: from pre-trained weights {ours:.4f}, from random {theirs:.4f}, "
              f"difference {diff:+.4f}")
    ours, theirs = found["pooled"]
    print(f"{found['task']} pooled over draws {', '.join(map(str, found['draws']))}: from pre-trained weights "
          f"{ours:.4f}, from random {theirs:.4f}, difference {ours - theirs:+.4f}; pre-trained above in "
          f"{found['above']} of {len(found['draws'])} draws, below in {found['below']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
