"""Split `mirtune evaluate measured openmp`'s per-group shares of the oracle by kind of program (the folder under
collectors/programs that holds it: PolyBench-like, generated, application-style, ordinary), as geometric means.

    .venv/bin/python benchmarks/openmp_by_kind.py [--json benchmarks/results/evaluate_openmp.json.gz] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mirtune.paths import read_gzip_json, write_result
from mirtune.tasks.measured import geomean

REPO = Path(__file__).resolve().parents[1]
KINDS = {"collectors/programs/openmp": "PolyBench-like", "collectors/programs/openmp_gen": "generated",
         "collectors/programs/openmp_apps": "application-style",
         "collectors/programs/openmp_ordinary": "ordinary (arguments, input files)",
         "collectors/programs/openmp_fewer": "fewer threads may win",
         "collectors/programs/openmp_atomic": "atomics and critical sections",
         **{f"benchmarks/programs/{s}": "retired held-out sets (ordinary)"
            for s in ("openmp_unseen", "openmp_unseen2", "openmp_unseen3")}}


def kind_of(program: str) -> str:
    """The kind of a program named in the evaluation: the folder holding its source (collectors/programs/..., or
    a held-out set of benchmarks/programs retired into the training data)."""
    for folder, kind in KINDS.items():
        if (REPO / folder / f"{program}.c").is_file():
            return kind
    return "other"


def by_kind(result: dict, method: str) -> dict[str, float]:
    """Geometric-mean share of the oracle of one method of an openmp evaluation, per kind of program."""
    kinds = [kind_of(p) for p in result["group_programs"]]
    share = result["methods"][method]["per_group_share"]
    return {k: geomean([s for s, g in zip(share, kinds) if g == k]) for k in dict.fromkeys(kinds)}


def by_kind_with_all(result: dict, method: str) -> dict[str, float]:
    """`by_kind`, after the geometric mean over all groups ("all")."""
    return {"all": geomean(result["methods"][method]["per_group_share"]), **by_kind(result, method)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=str(REPO / "benchmarks" / "results" / "evaluate_openmp.json.gz"))
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "evaluate_openmp_by_kind.json"))
    args = ap.parse_args(argv)
    try:
        result = read_gzip_json(args.json) if args.json.endswith(".gz") else json.loads(Path(args.json).read_text())
        kinds = [kind_of(p) for p in result["group_programs"]]
        table = {name: by_kind(result, name) for name in result["methods"]}
    except (OSError, ValueError, KeyError) as exc:
        print(f"openmp_by_kind: cannot read an openmp evaluation from {args.json}: {exc}", file=sys.stderr)
        return 2
    counts = {k: kinds.count(k) for k in dict.fromkeys(kinds)}
    print("share of the oracle by kind of program (geometric mean; groups): "
          + ", ".join(f"{k} {n}" for k, n in counts.items()))
    for name, row in table.items():
        print(f"  {name:12s} " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))
    write_result(args.out, {"source": args.json, "groups": counts, "share_of_oracle": table})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
