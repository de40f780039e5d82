"""How much of the VF/IF oracle's margin over LLVM's own choice is real: the timed runs of each point split.

    python benchmarks/vectorize_noise.py [--data datasets/vectorize-gcc] [--json benchmarks/results/vectorize_noise_gcc.json]
        [--against DIR]

The oracle picks, for each program, the fastest of 36 configurations (35 (VF, IF) pairs and LLVM's choice) by the
median of 3 runs; picking the least of 36 noisy numbers flatters it. Here each of the 3 runs in turn chooses the configuration (the fastest by that run
alone) and the median of the other two scores it: the split-run oracle, what a perfect predictor trained on one
measurement reaches on another. Reported (geometric means over the programs): the oracle's and the split-run
oracle's speedup over LLVM's choice, the split-run oracle's share of the oracle, how often the split run picks
LLVM's choice, and the programs whose best configuration beats LLVM's choice beyond the noise (its slowest run
faster than LLVM's fastest); for programs of GCC's tests from several folders, the same figures for each folder.
`--against DIR`: how a second measurement of some of the same programs agrees with this one (`agreement`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.paths import write_result  # noqa: E402
from mirtune.measure.records import read_rows  # noqa: E402
from mirtune.tasks.measured import geomean  # noqa: E402
from mirtune.tasks.vectorize import origin_folder  # noqa: E402


def runs_by_program(data: Path) -> tuple[list[str], np.ndarray, list[str | None]]:
    """(programs, runs[program, configuration, run], the GCC test folder of each program or None) of the complete
    programs (every configuration measured ok with 3 runs); configuration 0 is LLVM's own choice."""
    df = read_rows(data)
    if df.empty or "vf" not in df.columns:
        raise MirtuneError("no vectorize rows", str(data))
    df = df[(df["sweep"] == "vectorize") & (df["status"] == "ok")].copy()
    df["config"] = np.where(df["is_default"], "default", df["vf"].astype(str) + "x" + df["if"].astype(str))
    configs = ["default"] + sorted(set(df["config"]) - {"default"})
    programs, cube, folders = [], [], []
    for (program, _size), rows in df.groupby(["program", "input_size"]):
        runs = {c: list(r) for c, r in zip(rows["config"], rows["runtimes_s"]) if len(r) == 3}
        if set(runs) == set(configs):
            programs.append(program)
            cube.append([runs[c] for c in configs])
            origin = rows["origin"].iloc[0] if "origin" in rows else None
            folders.append(origin_folder(origin.split()[-1]) if isinstance(origin, str) and origin else None)
    return programs, np.asarray(cube, dtype=float), folders


def noise_report(cube: np.ndarray) -> dict:
    """The figures of the module's docstring from runs[program, configuration, run]."""
    median = np.median(cube, axis=2)
    oracle = median[:, 0] / median.min(axis=1)
    split_speedup, split_share, picks_llvm = [], [], []
    for k in range(cube.shape[2]):
        pick = cube[:, :, k].argmin(axis=1)
        rest = np.median(np.delete(cube, k, axis=2), axis=2)
        rows = np.arange(len(cube))
        split_speedup.append(rest[:, 0] / rest[rows, pick])
        split_share.append(rest.min(axis=1) / rest[rows, pick])
        picks_llvm.append(pick == 0)
    best = median.argmin(axis=1)
    beyond = cube[np.arange(len(cube)), best].max(axis=1) < cube[:, 0].min(axis=1)
    return {"programs": int(len(cube)), "configurations": int(cube.shape[1]),
            "oracle_speedup_over_llvm": round(geomean(oracle), 4),
            "split_run_oracle_speedup_over_llvm": round(geomean(np.concatenate(split_speedup)), 4),
            "split_run_oracle_share_of_its_oracle": round(geomean(np.concatenate(split_share)), 4),
            "split_run_picks_llvm": round(float(np.mean(picks_llvm)), 4),
            "best_beats_llvm_beyond_noise": int(beyond.sum()),
            "best_beats_llvm_beyond_noise_by_1.1x": int((beyond & (oracle >= 1.1)).sum())}


def agreement(programs: list[str], cube: np.ndarray, others: list[str], other: np.ndarray) -> dict:
    """How a second measurement (`others`, `other`: runs_by_program of another folder) of some of the same
    programs agrees with this one: the oracle of each, the share of the second's oracle that this one's best
    configuration reaches there, the median correlation of the configurations' log speedups over LLVM's choice,
    and the median ratio of this one's times to the second's."""
    at = {p: i for i, p in enumerate(others)}
    both = [(i, at[p]) for i, p in enumerate(programs) if p in at]
    if not both:
        raise MirtuneError("no program measured completely in both")
    mine = np.median(cube[[i for i, _ in both]], axis=2)
    theirs = np.median(other[[j for _, j in both]], axis=2)
    rows = np.arange(len(both))
    corr = [np.corrcoef(np.log(m / m[0]), np.log(t / t[0]))[0, 1] for m, t in zip(mine, theirs)]
    return {"programs": len(both),
            "oracle_speedup_over_llvm": round(geomean(mine[:, 0] / mine.min(axis=1)), 4),
            "other_oracle_speedup_over_llvm": round(geomean(theirs[:, 0] / theirs.min(axis=1)), 4),
            "pick_share_of_other_oracle": round(geomean(theirs.min(axis=1) / theirs[rows, mine.argmin(axis=1)]), 4),
            "median_correlation_of_log_speedups": round(float(np.median(corr)), 4),
            "median_time_ratio": round(float(np.median(mine / theirs)), 4)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO / "datasets" / "vectorize-gcc")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--against", type=Path, metavar="DIR",
                    help="a second measurement of some of the same programs (say, re-measured alone): how it agrees")
    args = ap.parse_args(argv)
    try:
        programs, cube, folders = runs_by_program(args.data)
        if not programs:
            raise MirtuneError("no program with every configuration measured ok", str(args.data))
        against = agreement(programs, cube, *runs_by_program(args.against)[:2]) if args.against else None
    except MirtuneError as exc:
        print(exc.line(), file=sys.stderr)
        return exc.exit_code
    report = {"data": str(args.data.relative_to(REPO) if args.data.is_relative_to(REPO) else args.data),
              **noise_report(cube)}
    groups = sorted({f for f in folders if f is not None})
    if len(groups) > 1:  # GCC's tests from several folders: the figures of each
        report["by_folder"] = {g: noise_report(cube[[f == g for f in folders]]) for g in groups}
    if against is not None:
        report["against"] = {"data": str(args.against), **against}
    print(json.dumps(report, indent=1))
    if args.json:
        write_result(args.json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
