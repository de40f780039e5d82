"""The data-reduction factor of a data-efficiency study against another run's from-scratch reference.

    python benchmarks/data_efficiency_reference.py benchmarks/results/data_efficiency_devmap.json \
        benchmarks/results/data_efficiency_devmap_scratch_6epochs.json

The study's frozen-head curve (its comparison folds) against the error of `scratch` at fraction 1.0 in the
reference run (e.g. the same folds trained for more epochs), with `mirtune.experiments.data_efficiency.reduction_factor`;
the folds of the two runs must be the same.
"""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    """Print the factor per platform and the figures that decide it."""
    from mirtune.experiments.data_efficiency import reduction_factor

    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("study", help="JSON of `mirtune evaluate data-efficiency devmap --label-fractions ...` with the frozen method")
    p.add_argument("reference", help="JSON of a run with scratch at fraction 1.0 on the same folds")
    args = p.parse_args(argv)
    study, ref = (json.load(open(f)) for f in (args.study, args.reference))
    if study["comparison_folds"] != ref["comparison_folds"]:
        print(f"the runs compare different folds: {study['comparison_folds']} vs {ref['comparison_folds']}",
              file=sys.stderr)
        return 2
    print(f"reference: scratch at fraction 1.0, {ref['end_to_end']['epochs']} epochs, folds {ref['comparison_folds']}")
    factors = []
    for platform, curves in study["curves"].items():
        full = [c for c in ref["curves"][platform].get("scratch", []) if c["fraction"] == 1.0]
        frozen = curves["frozen"]
        if not full or len(frozen) != len(study["fractions"]):
            print(f"{platform}: missing points")
            return 2
        factor, fraction = reduction_factor([c["fraction"] for c in frozen], [c["error_mean"] for c in frozen],
                                            full[0]["error_mean"])
        factors.append(factor)
        errors = ", ".join(f"{c['fraction']:g}: {100 * c['error_mean']:.1f}%" for c in frozen)
        print(f"{platform}: scratch on all the data {100 * full[0]['error_mean']:.1f}% error; frozen head {errors}; "
              f"data_reduction_factor {factor if factor is not None else 'none (worse even with all the labels)'}")
    print(f"data_reduction_factor (the smaller over the platforms): "
          f"{min(factors) if all(f is not None for f in factors) else None}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
