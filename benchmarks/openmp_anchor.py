"""Where should an OpenMP predictor stay without evidence: at the default or at the configuration best on average?

Runs `mirtune evaluate measured openmp`'s leave-one-application-out protocol (mirtune.predict.held_out: heads chosen
by inner cross-validation over the other applications) twice on the same data, once with heads anchored on the
default and once anchored on the one configuration best on average over their training applications, and splits
both by kind of program (benchmarks/openmp_by_kind.py), with the code-free baselines from the same run.

    .venv/bin/python benchmarks/openmp_anchor.py [--data DIR ...] [--out benchmarks/results/openmp_anchor.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from openmp_by_kind import by_kind_with_all as by_kind  # noqa: E402

from mirtune.paths import write_result  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    from mirtune.predict import held_out
    from mirtune.tasks import openmp
    from mirtune.tasks.embedders import get_embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", default=[str(REPO / "datasets" / d) for d in openmp.DATASETS])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "openmp_anchor.json"))
    args = ap.parse_args(argv)
    rows: dict[str, dict[str, float]] = {}
    runs = {}
    for anchor in ("default", "best"):
        result = held_out.run("openmp", args.data, [get_embedder("mirencoder")], anchors=(anchor,), note=print)
        runs[anchor] = {k: result[k] for k in ("applications", "groups", "chosen_heads", "timing_s")}
        if anchor == "default":
            rows["default configuration"] = by_kind(result, "default")
            rows["best fixed"] = by_kind(result, "best fixed")
        rows[f"predictor, anchored on the {'default' if anchor == 'default' else 'best on average'}"] = \
            by_kind(result, "mirencoder")
    kinds = list(next(iter(rows.values())))
    print(f"openmp, leave-one-application-out, {runs['best']['applications']} applications, "
          f"{runs['best']['groups']} groups: share of the oracle (geometric mean) by kind of program")
    print(f"{'method':44s} " + " ".join(f"{k[:22]:>22s}" for k in kinds))
    for name, row in rows.items():
        print(f"{name:44s} " + " ".join(f"{row[k]:22.3f}" for k in kinds))
    write_result(args.out, {"data": args.data, "share_of_oracle": rows, "runs": runs})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
