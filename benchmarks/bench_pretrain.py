"""Pre-training speed: `mirtune pretrain` with one and with two Ray Train workers (`--vary workers`, the default),
or in fp32 and in bf16 at `--workers` (`--vary precision`), through the same files.

Each run is the command as a user runs it: `python -m mirtune.cli pretrain --preset small ...` in a subprocess,
timed from process start to the written model, on a private local Ray cluster that the command starts itself.
Both runs go through the same files: every worker count shares one order of the corpus, and the one-worker run
takes twice the steps of the two-worker run (global batches of 8 and 16 files), so the ratio compares the same
work (fp32 and bf16 take the same steps). The steady rate is training files per second of step time (evaluation
and checkpoints excluded) after the first `--skip-files`, read from the run's metrics.csv; the runs alternate
(1, 2, then 2, 1, ...) and the ratio (second variant over first) is taken within each round; medians over
rounds. `--reference-tree` runs another checkout in the same rounds (the code before a change, from
`git worktree add`). Run it alone on the machine.

    .venv/bin/python benchmarks/bench_pretrain.py [--corpus build/corpus] [--files 640] [--rounds 2] \
        [--vary workers|precision] [--workers 2] [--preset small] [--reference-tree DIR] \
        [--json benchmarks/results/pretrain_scaling.json]
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mirtune.paths import write_result
from mirtune.host import cpu_model
from mirtune.measure.host import cpu_tag

ROOT = Path(__file__).resolve().parents[1]


def steady_rate(metrics_csv: Path, skip_files: int) -> tuple[float, int]:
    """Files per second of step time after the first `skip_files` files, and the files it covers."""
    with open(metrics_csv) as f:
        rows = [(int(r["samples"]), float(r["time_s"])) for r in csv.DictReader(f)]
    start = next(((s, t) for s, t in rows if s >= skip_files), None)
    if start is None or rows[-1][0] <= start[0]:
        raise SystemExit(f"bench_pretrain: fewer than {skip_files} files in {metrics_csv}; raise --files")
    return (rows[-1][0] - start[0]) / (rows[-1][1] - start[1]), rows[-1][0] - start[0]


#: --vary: the two variants compared (name, pretrain options) and the name of the ratio second / first
VARIANTS = {"workers": ([("1", {"workers": 1}), ("2", {"workers": 2})], "scaling_2_over_1"),
            "precision": ([("fp32", {"precision": "fp32"}), ("bf16", {"precision": "bf16"})], "bf16_over_fp32")}


def run(corpus: Path, workers: int, files: int, batch: int, preset: str, skip_files: int, tree: Path,
        precision: str = "auto") -> dict:
    """One `mirtune pretrain` command of the mirtune in `tree` through `files` files with `workers` workers."""
    steps = files // (batch * workers)
    with tempfile.TemporaryDirectory(prefix="mirtune-bench-pretrain-") as tmp:
        cmd = [sys.executable, "-m", "mirtune.cli", "pretrain", "--preset", preset, "--corpus", str(corpus),
               "--out", tmp, "--workers", str(workers), "--steps", str(steps), "--batch-size", str(batch),
               "--checkpoint-every", str(steps), "--eval-every", "0", "--eval-samples", "16", "--log-every", "5"] + (
                   [] if precision == "auto" else ["--precision", precision])
        t0 = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=str(tree))  # the Ray workers import the same tree
        proc = subprocess.run(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            raise SystemExit(f"bench_pretrain: {' '.join(cmd[2:])} failed:\n{proc.stdout[-2000:]}")
        rate, counted = steady_rate(Path(tmp) / "metrics.csv", skip_files)
    return {"workers": workers, "precision": precision, "steps": steps, "files": steps * batch * workers,
            "wall_s": round(wall, 2), "files_per_s": round(rate, 3), "files_timed": counted}


def one_round(r: int, trees: dict[str, Path], args: argparse.Namespace, corpus: Path) -> dict:
    """Every tree with both variants of `args.vary`, in an order that alternates from round to round."""
    variants, ratio_key = VARIANTS[args.vary]
    plan = [(name, v) for name in trees for v in range(2)]
    plan = plan if r % 2 == 0 else plan[::-1]
    load = os.getloadavg()[0]
    runs = {}
    for name, v in plan:
        opts = {"workers": args.workers, "precision": "auto", **variants[v][1]}
        runs[(name, v)] = run(corpus, opts["workers"], args.files, args.batch_size, args.preset, args.skip_files,
                              trees[name], opts["precision"])
    out: dict = {"order": [f"{name}/{variants[v][0]}" for name, v in plan], "loadavg_1m_start": load}
    (first, _), (second, _) = variants
    for name in trees:
        one, two = runs[(name, 0)], runs[(name, 1)]
        ratio = two["files_per_s"] / one["files_per_s"]
        out[name] = {"runs": [one, two], ratio_key: round(ratio, 3),
                     "wall_ratio": round(one["wall_s"] / two["wall_s"], 3)}
        print(f"round {r + 1}, {name}: {first} {one['files_per_s']:.2f} files/s ({one['wall_s']:.0f} s), "
              f"{second} {two['files_per_s']:.2f} files/s ({two['wall_s']:.0f} s): {ratio:.2f}x steady, "
              f"{out[name]['wall_ratio']:.2f}x whole command", flush=True)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="build/corpus", help="a corpus from `mirtune corpus build`")
    ap.add_argument("--files", type=int, default=640, help="training files per run (default 640)")
    ap.add_argument("--batch-size", type=int, default=8, help="files per worker per step (default 8)")
    ap.add_argument("--preset", default="small")
    ap.add_argument("--skip-files", type=int, default=80, help="files left out of the steady rate (warm-up)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--vary", choices=sorted(VARIANTS), default="workers",
                    help="what the two runs of a round differ in: workers (1 and 2) or precision (fp32 and bf16)")
    ap.add_argument("--workers", type=int, default=2, help="workers of both runs with --vary precision (default 2)")
    ap.add_argument("--reference-tree", default=None,
                    help="another mirtune checkout (such as a `git worktree` of an earlier commit) run in the same "
                    "rounds, as the reference")
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args()
    corpus = Path(args.corpus).resolve()
    if not (corpus / "samples").is_dir():
        raise SystemExit(f"bench_pretrain: no corpus at {corpus} (build one with `mirtune corpus build`)")
    trees = {"this": ROOT, **({"reference": Path(args.reference_tree).resolve()} if args.reference_tree else {})}
    rounds = [one_round(r, trees, args, corpus) for r in range(args.rounds)]
    variants, ratio_key = VARIANTS[args.vary]
    result = {"benchmark": "bench_pretrain", "vary": args.vary,
              **({"workers": args.workers} if args.vary == "precision" else {}),
              "trees": {k: str(v) for k, v in trees.items()}, "corpus": str(corpus),
              "preset": args.preset, "batch_size": args.batch_size, "files": args.files,
              "skip_files": args.skip_files, "cpu_model": cpu_model(), "cpu_tag": cpu_tag(), "cpus": os.cpu_count(),
              "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "rounds": rounds}
    for name in trees:
        med = statistics.median(x[name][ratio_key] for x in rounds)
        wall = statistics.median(x[name]["wall_ratio"] for x in rounds)
        result[name] = {f"{ratio_key}_median": med, "wall_ratio_median": wall}
        print(f"{name}: {variants[1][0]} over {variants[0][0]} {med:.2f}x steady (median of {len(rounds)} rounds), "
              f"{wall:.2f}x whole command")
    if args.json:
        write_result(args.json, result)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
